// The demo's eip155 act: signatures (personal, typed data v1/v3/v4), refusals, signed and sent transactions
// checked on anvil, then EIP-5792 batched calls that upgrade the account with EIP-7702, then a token to watch
// and a chain to add.
import { deployLiveToken } from '@wallet-rpc/pay-sandbox'
import { keccak256 } from 'viem'
import type { VerifyResult } from 'wallet-rpc/verify'
import { jsonRpc } from '../../http.js'
import { ANVIL, type Chains } from '../chains.js'
import { type DappSession, verify } from '../dapp.js'

export async function ethereumAct(session: DappSession, chains: Chains): Promise<void> {
  const from = (await session.wallet.accounts(ANVIL))[0] ?? ''
  const other = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
  const chainId = chains.anvil.chainId
  await jsonRpc(chains.anvil.url, 'anvil_setBalance', [from, '0x3635c9adc5dea00000'])

  const message = `0x${Buffer.from('Sign in to dapp.example').toString('hex')}`
  await session.step(ANVIL, 'personal_sign', [message, from], (result) =>
    verify.eip155.personal_sign!([message, from], result),
  )
  await session.refused(ANVIL, 'eth_sign', [from, message], 5101, 'refused: blind signing is off by default')

  const typed = {
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'version', type: 'string' },
        { name: 'chainId', type: 'uint256' },
        { name: 'verifyingContract', type: 'address' },
      ],
      Person: [
        { name: 'name', type: 'string' },
        { name: 'wallet', type: 'address' },
      ],
      Mail: [
        { name: 'from', type: 'Person' },
        { name: 'to', type: 'Person' },
        { name: 'contents', type: 'string' },
      ],
    },
    primaryType: 'Mail',
    domain: {
      name: 'Ether Mail',
      version: '1',
      chainId,
      verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC',
    },
    message: {
      from: { name: 'Dapp user', wallet: from },
      to: { name: 'Bob', wallet: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB' },
      contents: 'Hello, Bob!',
    },
  }
  for (const method of ['eth_signTypedData_v4', 'eth_signTypedData', 'eth_signTypedData_v3']) {
    const params = [from, method === 'eth_signTypedData_v3' ? JSON.stringify(typed) : typed]
    await session.step(ANVIL, method, params, (result) => verify.eip155[method]!(params, result, { chainId }))
  }

  const txRequest = { from, to: other, value: '0x2386f26fc10000' }
  const raw = await session.step<string>(ANVIL, 'eth_signTransaction', [txRequest], (result) =>
    verify.eip155.eth_signTransaction!([txRequest], result, { chainId }),
  )
  await session.step<string>(ANVIL, 'eth_sendRawTransaction', [raw ?? '0x'], async (hash) => {
    const verdict = verify.eip155.eth_sendRawTransaction!([raw], hash, { chainId })
    if (!verdict.valid) return verdict
    return mined(chains, hash)
  })
  const sendRequest = { from, to: other, value: '0x1', data: '0x64656d6f' }
  await session.step<string>(ANVIL, 'eth_sendTransaction', [sendRequest], async (hash) => {
    const rawTransaction = await jsonRpc(chains.anvil.url, 'eth_getRawTransactionByHash', [hash])
    if (typeof rawTransaction !== 'string') return { valid: false, reason: 'anvil does not know the hash' }
    const verdict = verify.eip155.eth_sendTransaction!([sendRequest], hash, { chainId, rawTransaction })
    if (!verdict.valid) return verdict
    if (keccak256(rawTransaction as `0x${string}`) !== hash) return { valid: false, reason: 'hash mismatch' }
    return mined(chains, hash)
  })
  await batchedCalls(session, chains, from, other)
  await walletMethods(session, chains)
}

/**
 * The wallet's own lists: a token to watch (an ERC-20 deployed for the demo; the wallet reads its symbol and
 * decimals from the contract before it answers) and a chain to add (the one already served: null, as the
 * wallet answers without asking). The demo's wallet says yes to both, as `--approve all` does.
 */
async function walletMethods(session: DappSession, chains: Chains): Promise<void> {
  const token = await deployLiveToken(chains.anvil.url, { symbol: 'DEMO', decimals: 6, deployerIndex: 9 })
  const asset = { type: 'ERC20', options: { address: token.address, symbol: 'DEMO', decimals: 6 } }
  await session.step<boolean>(ANVIL, 'wallet_watchAsset', asset, (result) =>
    result === true ? { valid: true } : { valid: false, reason: `answered ${JSON.stringify(result)}` },
  )
  const chain = {
    chainId: `0x${chains.anvil.chainId.toString(16)}`,
    chainName: 'Anvil',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: [chains.anvil.url],
  }
  await session.step<null>(ANVIL, 'wallet_addEthereumChain', [chain], (result) =>
    result === null ? { valid: true } : { valid: false, reason: 'not null' },
  )
}

/** EIP-5792: capabilities, one atomic batch that upgrades the account (EIP-7702), its status, a switch. */
async function batchedCalls(
  session: DappSession,
  chains: Chains,
  from: string,
  other: string,
): Promise<void> {
  const hexChain = `0x${chains.anvil.chainId.toString(16)}`
  const delegated = `0xef0100${chains.eip7702Delegate.slice(2).toLowerCase()}`
  await session.step<Record<string, { atomic?: { status?: string } }>>(
    ANVIL,
    'wallet_getCapabilities',
    [from, [hexChain]],
    (result) =>
      result[hexChain]?.atomic?.status === 'ready'
        ? { valid: true }
        : { valid: false, reason: `atomic is ${JSON.stringify(result[hexChain]?.atomic)}` },
  )
  const calls = [
    { to: other, value: '0x1' },
    { to: other, value: '0x2' },
  ]
  const sent = await session.step<{ id: string; capabilities: { caip345: { transactionHashes: string[] } } }>(
    ANVIL,
    'wallet_sendCalls',
    [{ version: '2.0.0', chainId: hexChain, from, atomicRequired: true, calls }],
    async (result) => {
      const hashes = result.capabilities.caip345.transactionHashes
      if (hashes.length !== 1) return { valid: false, reason: `${hashes.length} transactions, not one` }
      const receipt = await mined(chains, hashes[0]!)
      if (!receipt.valid) return receipt
      const code = await jsonRpc(chains.anvil.url, 'eth_getCode', [from, 'latest'])
      return code === delegated ? { valid: true } : { valid: false, reason: `account code ${String(code)}` }
    },
    'wallet_sendCalls (2 calls, one EIP-7702 transaction)',
  )
  await session.step<{ status: number; atomic: boolean }>(
    ANVIL,
    'wallet_getCallsStatus',
    [sent?.id ?? ''],
    (result) =>
      result.status === 200 && result.atomic
        ? { valid: true }
        : { valid: false, reason: `status ${result.status}, atomic ${result.atomic}` },
  )
  await session.step<null>(ANVIL, 'wallet_switchEthereumChain', [{ chainId: hexChain }], (result) =>
    result === null ? { valid: true } : { valid: false, reason: 'not null' },
  )
}

/**
 * The transaction's receipt says status 1. Anvil mines on arrival but answers the send first, so the receipt
 * may lag the hash by a moment on a loaded machine: asked again for up to 10 s.
 */
async function mined(chains: Chains, hash: string): Promise<VerifyResult> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const receipt = (await jsonRpc(chains.anvil.url, 'eth_getTransactionReceipt', [hash])) as {
      status?: string
    } | null
    if (receipt !== null) {
      return receipt.status === '0x1' ? { valid: true } : { valid: false, reason: 'mined with status 0' }
    }
    if (Date.now() > deadline) return { valid: false, reason: 'not mined within 10 s' }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
