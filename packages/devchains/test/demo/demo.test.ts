import { describe, expect, it } from 'vitest'
import { type DemoRow, runDemoSession } from '../../src/demo/session.js'

describe('wallet-rpc demo', () => {
  it('verifies every answer of a session over every method of every namespace', {
    timeout: 120_000,
  }, async () => {
    const rows: DemoRow[] = []
    const returned = await runDemoSession({ onRow: (row) => rows.push(row) })
    expect(returned).toEqual(rows)
    expect(rows.filter((row) => !row.verified)).toEqual([])
    const covered = new Set(rows.map((row) => `${row.chain} ${row.method.split(' ')[0]}`))
    for (const method of ['getAccountAddresses', 'signMessage', 'signPsbt', 'sendTransfer']) {
      expect(covered).toContain(`bip122:0f9188f13cb7b2c71f2a335e3a4fc328 ${method}`)
    }
    for (const method of ['ton_signData', 'ton_sendMessage']) expect(covered).toContain(`ton:-3 ${method}`)
    // The review of a jetton transfer, its emulated balance changes equal to what the real send moved.
    expect(rows.find((row) => row.method === 'ton_sendMessage review (jetton transfer)')?.note).toMatch(
      /^balance changes: -0\.\d+ TON, -12\.5 DEMO \(token kQ[\w-]{46}, symbol as it reports\)$/,
    )
    for (const method of [
      'personal_sign',
      'eth_sign',
      'eth_signTypedData',
      'eth_signTypedData_v3',
      'eth_signTypedData_v4',
      'eth_signTransaction',
      'eth_sendTransaction',
      'eth_sendRawTransaction',
      'wallet_getCapabilities',
      'wallet_sendCalls',
      'wallet_getCallsStatus',
      'wallet_switchEthereumChain',
    ]) {
      expect(covered).toContain(`eip155:31337 ${method}`)
    }
    for (const method of [
      'solana_getAccounts',
      'solana_requestAccounts',
      'solana_signMessage',
      'solana_signTransaction',
      'solana_signAllTransactions',
      'solana_signAndSendTransaction',
    ]) {
      expect(covered).toContain(`solana:localnet ${method}`)
    }
  })
})
