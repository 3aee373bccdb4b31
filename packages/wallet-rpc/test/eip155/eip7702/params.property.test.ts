import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createWalletRpc } from '../../../src/createWalletRpc.js'
import { eip155, mnemonicKeys } from '../../../src/eip155/index.js'

/**
 * Bad input to the new methods is screened before any chain access: a provider that records every call
 * stays untouched, the answer is a JSON-RPC error with a code from the method's list (never -32603, never
 * a throw), and nothing is ever put before the user.
 */
const devMnemonic = 'test test test test test test test test test test test junk'
const account0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const recipient = '0x000000000000000000000000000000000000dEaD'

function wallet() {
  const chainCalls: string[] = []
  const approvals: unknown[] = []
  const rpc = createWalletRpc({
    namespaces: [
      eip155({
        keys: mnemonicKeys({ mnemonic: devMnemonic }),
        chains: [
          {
            chainId: 31337,
            provider: {
              async request({ method }) {
                chainCalls.push(method)
                throw new Error('no chain here')
              },
            },
            eip7702: { delegate: '0x63c0c19a282a1B52b07dD5a65b58948A07DAE32B' },
          },
        ],
        watchAsset: () => true,
        addEthereumChain: () => true,
        showCallsStatus: () => {},
      }),
    ],
    approve: (review) => {
      approvals.push(review)
      return true
    },
  })
  return { rpc, chainCalls, approvals }
}

const valid = {
  version: '2.0.0',
  chainId: '0x7a69',
  from: account0,
  atomicRequired: true,
  calls: [{ to: recipient, value: '0x1', data: '0x' }],
}

/** A field of the valid request replaced by anything (or removed), or a whole random value. */
const mutated = fc.oneof(
  fc
    .record({ field: fc.constantFrom(...Object.keys(valid), 'extra'), value: fc.anything() })
    .map(({ field, value }) => ({
      ...valid,
      [field]: value,
    })),
  fc
    .record({ field: fc.constantFrom('to', 'value', 'data', 'capabilities', 'gas'), value: fc.anything() })
    .map(({ field, value }) => ({ ...valid, calls: [{ ...valid.calls[0], [field]: value }] })),
  fc.anything(),
)

const screeningCodes = new Set([-32602, 4100, 5700, 5710, 5720, 5740, 5760])

describe('screening of the new methods (fast-check)', () => {
  it('wallet_sendCalls: any malformed batch is refused without a chain read or an approval', async () => {
    const { rpc, chainCalls, approvals } = wallet()
    await fc.assert(
      fc.asyncProperty(mutated, async (request) => {
        const response = (await rpc.handle({
          chainId: 'eip155:31337',
          request: { id: 1, jsonrpc: '2.0', method: 'wallet_sendCalls', params: [request] },
        })) as { error?: { code: number } }
        if (response.error === undefined || !screeningCodes.has(response.error.code)) {
          // Only a well-formed batch may get as far as the chain (whose failure is then -32603).
          expect(chainCalls.length).toBeGreaterThan(0)
          chainCalls.length = 0
          return
        }
        expect(chainCalls).toEqual([])
        expect(approvals).toEqual([])
      }),
      { numRuns: 400 },
    )
  })

  it('getCapabilities, getCallsStatus, showCallsStatus, switch, add, watchAsset: never -32603 on malformed params, no chain read', async () => {
    const { rpc, chainCalls, approvals } = wallet()
    const methods = [
      'wallet_getCapabilities',
      'wallet_getCallsStatus',
      'wallet_showCallsStatus',
      'wallet_switchEthereumChain',
      'wallet_addEthereumChain',
      'wallet_watchAsset',
    ]
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...methods), fc.anything(), async (method, params) => {
        const response = (await rpc.handle({
          chainId: 'eip155:31337',
          request: { id: 1, jsonrpc: '2.0', method, params },
        })) as { error?: { code: number; data?: { path?: string } } }
        expect(response.error).toBeDefined()
        expect([-32602, 4100, 4902, 5730]).toContain(response.error!.code)
        expect(chainCalls).toEqual([])
        expect(approvals).toEqual([])
      }),
      { numRuns: 400 },
    )
  })
})
