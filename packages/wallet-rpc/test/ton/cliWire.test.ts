import { PassThrough } from 'node:stream'
import { Cell } from '@ton/core'
import { describe, expect, it } from 'vitest'
import { serveJsonLines } from '../../src/cli/handle.js'
import { parseWalletOptions, UsageError } from '../../src/cli/options.js'
import { wireTon } from '../../src/walletFromOptions/ton.js'
import { createCliWallet } from '../../src/walletFromOptions/wallet.js'
import { vectors } from './fixtures.js'

const fixture = vectors('mnemonic-wallets.json').wallets[1]
const env = { WALLET_RPC_TON_MNEMONIC: fixture.mnemonic }
const options = (...argv: string[]) => parseWalletOptions(argv, env, false)

describe('CLI ton wiring', () => {
  it('is absent without a TON mnemonic', async () => {
    expect(await wireTon(parseWalletOptions([], {}, false))).toBeUndefined()
  })

  it('serves both chains with the v5R1 wallet by default and v4R2 on request', async () => {
    const v5 = (await wireTon(options()))!
    expect(v5.chains).toEqual(['ton:-239', 'ton:-3'])
    expect(Object.keys(v5.methods).sort()).toEqual(['ton_proof', 'ton_sendMessage', 'ton_signData'])
    // Accounts are user-friendly, non-bounceable (test flag on ton:-3): a valid CAIP-10 account id.
    expect(await v5.accounts!('ton:-239')).toEqual([fixture.v5r1.nonBounceable])
    const properties = await v5.sessionProperties!()
    expect(properties).toEqual({ ton_getPublicKey: fixture.publicKey, ton_getStateInit: expect.any(String) })
    // Byte-identical to the ton-connect/kit WalletV5R1 fixture, and its hash is the announced account.
    expect(properties.ton_getStateInit).toBe(fixture.v5r1.stateInitBoc)
    expect(`0:${Cell.fromBase64(properties.ton_getStateInit!).hash().toString('hex')}`).toBe(fixture.v5r1.raw)

    const v4 = (await wireTon(options('--ton-wallet', 'v4r2')))!
    expect(await v4.accounts!('ton:-3')).toEqual([fixture.v4r2.testnetNonBounceable])
    // --account opens a different subwallet of the same key.
    const v4second = (await wireTon(options('--ton-wallet', 'v4r2', '--account', '1')))!
    expect(await v4second.accounts!('ton:-3')).not.toEqual([fixture.v4r2.testnetNonBounceable])
  })

  it('refuses --toncenter for a chain that is not ton, and a bad mnemonic without echoing it', async () => {
    await expect(wireTon(options('--toncenter', 'ton:0=https://x.example'))).rejects.toBeInstanceOf(
      UsageError,
    )
    const bad = parseWalletOptions([], { WALLET_RPC_TON_MNEMONIC: 'abandon '.repeat(23) + 'about' }, false)
    const error = (await wireTon(bad).catch((e: unknown) => e)) as Error
    expect(error).toBeInstanceOf(UsageError)
    expect(error.message).not.toContain('abandon')
  })

  it('wallet-rpc handle: signData with --now is reproducible; sendMessage without --toncenter answers 5101', async () => {
    const wallet = await createCliWallet(options('--approve', 'all', '--now', '1700000000'), () => {})
    const input = new PassThrough()
    const output = new PassThrough()
    const chunks: string[] = []
    output.on('data', (chunk: Buffer) => chunks.push(chunk.toString()))
    const signData = vectors('sign-data.json')
    input.end(
      [
        {
          chainId: 'ton:-239',
          origin: 'https://example.com',
          request: { jsonrpc: '2.0', id: 1, method: 'ton_signData', params: [signData.cases[0].payload] },
        },
        {
          chainId: 'ton:-3',
          request: { jsonrpc: '2.0', id: 2, method: 'ton_sendMessage', params: { messages: [] } },
        },
        {
          chainId: 'ton:-3',
          request: {
            jsonrpc: '2.0',
            id: 3,
            method: 'ton_sendMessage',
            params: {
              messages: [{ address: 'UQDmnxDMhId6v1Ofg_h5KR5coWlFG6e86Ro3pc7Tq4CA07-i', amount: '1' }],
            },
          },
        },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n'),
    )
    await serveJsonLines(wallet, input, output)
    await wallet.close()
    const answers = chunks
      .join('')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(answers[0].result.signature).toBe(signData.cases[0].signature)
    expect(answers[1].error.code).toBe(-32602)
    expect(answers[2].error.code).toBe(5101)
  })
})
