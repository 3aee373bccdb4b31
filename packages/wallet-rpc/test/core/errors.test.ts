import { describe, expect, it } from 'vitest'
import {
  ChainNotConfiguredError,
  InternalError,
  InvalidParamsError,
  InvalidRequestError,
  MethodNotFoundError,
  MethodNotSupportedError,
  ParseError,
  PolicyRefusedError,
  ProviderError,
  RequestExpiredError,
  serializeError,
  UnauthorizedError,
  UserRejectedError,
  WalletRpcError,
} from '../../src/core/errors.js'
import { failure } from '../../src/core/jsonrpc.js'

describe('error classes', () => {
  it.each([
    [new ParseError(), -32700, 'Parse error.'],
    [new InvalidRequestError('x'), -32600, 'Invalid request.'],
    [new MethodNotFoundError('m'), -32601, 'Method not found.'],
    [new InvalidParamsError('bad', { path: 'a.b' }), -32602, 'Invalid params.'],
    [new PolicyRefusedError('fee above cap', { rule: 'fee_cap' }), -32602, 'Refused by wallet policy.'],
    [new ProviderError('timeout'), -32603, 'Chain provider error.'],
    [new InternalError(), -32603, 'Internal error.'],
    [new UnauthorizedError('bc1q…'), 4100, 'The requested account is not owned by this wallet.'],
    [new UserRejectedError(), 5000, 'User rejected.'],
    [new ChainNotConfiguredError('eip155:5'), 5100, 'Unsupported chain.'],
    [new MethodNotSupportedError('eth_sign'), 5101, 'Unsupported method.'],
    [new RequestExpiredError(), 8000, 'Request expired.'],
  ])('%s carries code %i and a safe short message', (error, code, message) => {
    expect(error).toBeInstanceOf(WalletRpcError)
    expect(error.code).toBe(code)
    expect(serializeError(error)).toMatchObject({ code, message })
  })

  it('keeps data for the dapp and details for the wallet only', () => {
    const error = new ProviderError('broadcast rejected: bad-txns-inputs-missingorspent', {
      details: 'POST http://127.0.0.1:3002/tx answered 400',
    })
    expect(error.message).toContain('POST http://127.0.0.1')
    expect(serializeError(error)).toEqual({
      code: -32603,
      message: 'Chain provider error.',
      data: { reason: 'broadcast rejected: bad-txns-inputs-missingorspent' },
    })
  })

  it('turns anything that is not ours into a generic -32603 without message or stack', () => {
    for (const thrown of [new Error('secret seed here'), 'string', 42, null, undefined, { code: 4100 }]) {
      expect(serializeError(thrown)).toEqual({ code: -32603, message: 'Internal error.' })
    }
  })

  it('makes error data JSON-safe', () => {
    const error = new WalletRpcError(-32602, 'Invalid params.', {
      data: { fee: 10n ** 30n, raw: new Uint8Array([1, 255]) },
    })
    expect(failure(1, error)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32602,
        message: 'Invalid params.',
        data: { fee: '1000000000000000000000000000000', raw: '01ff' },
      },
    })
  })
})
