import { randomUUID } from 'node:crypto'
import { recoverPersonalSignature, recoverTypedSignature, SignTypedDataVersion } from '@metamask/eth-sig-util'
import { walletConnect } from '@wagmi/connectors'
import {
  type Config,
  connect,
  createConfig,
  getAccount,
  http,
  sendTransaction,
  signMessage,
  signTypedData,
} from '@wagmi/core'
import { type AnvilInstance, startAnvil } from '@wallet-rpc/devchains/anvil'
import { createPublicClient, defineChain, type EIP1193Provider, parseEther, toHex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eip155, httpProvider, mnemonicKeys } from '../../src/eip155/index.js'
import { memoryStorage } from '../walletkit/localRelay.js'
import { type DappSession, dappUrl, installedVersion, startDappSession } from './dappSession.js'

/**
 * wagmi's WalletConnect path (`@wagmi/connectors` `walletConnect` → @walletconnect/ethereum-provider →
 * UniversalProvider) against our wallet over the local relay, with anvil behind the wallet. The actions a
 * dapp calls (`signMessage`, `signTypedData`, `sendTransaction`) go through viem exactly as in a browser;
 * the raw requests wagmi users also send (typed data as a JSON string or an object, personal_sign in both
 * parameter orders) go through the connector's own EIP-1193 provider.
 */

// anvil's default dev mnemonic: account 0 is funded on the local chain.
const devMnemonic = 'test test test test test test test test test test test junk'
const recipient = '0x000000000000000000000000000000000000dEaD'

let anvil: AnvilInstance
let dapp: DappSession
let config: Config
let account: `0x${string}`
let provider: EIP1193Provider

const mail = {
  domain: {
    name: 'Ether Mail',
    version: '1',
    chainId: 31337,
    verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC',
  },
  types: {
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
  message: {
    from: { name: 'Cow', wallet: '0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826' },
    to: { name: 'Bob', wallet: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB' },
    contents: 'Hello, Bob!',
  },
} as const

const eip712Domain = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
]

beforeAll(async () => {
  anvil = await startAnvil()
  dapp = await startDappSession({
    namespaces: [
      eip155({
        keys: mnemonicKeys({ mnemonic: devMnemonic }),
        chains: [{ chainId: anvil.chainId, provider: httpProvider(anvil.url) }],
      }),
    ],
  })
  const chain = defineChain({
    id: anvil.chainId,
    name: 'Anvil',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [anvil.url] } },
  })
  const connectorFn = walletConnect({
    projectId: 'local-test',
    showQrModal: false,
    metadata: { name: 'wagmi dapp', description: '', url: dappUrl, icons: [] },
    // EthereumProvider passes these on to its SignClient: the local relay, in-memory storage, no telemetry.
    relayUrl: dapp.relay.url,
    storage: memoryStorage(),
    customStoragePrefix: `wagmi-${randomUUID()}`,
    telemetryEnabled: false,
    logger: 'silent',
  } as Parameters<typeof walletConnect>[0])
  config = createConfig({
    chains: [chain],
    connectors: [connectorFn],
    transports: { [chain.id]: http(anvil.url) },
  })
  const connector = config.connectors[0]!
  connector.emitter.on('message', ({ type, data }) => {
    if (type === 'display_uri') void dapp.pair(data as string)
  })
  const connected = await connect(config, { connector })
  account = connected.accounts[0]!
  provider = (await connector.getProvider()) as EIP1193Provider
}, 120_000)

afterAll(async () => {
  const wcProvider = provider as unknown as {
    disconnect?: () => Promise<void>
    signer?: {
      client: { core: { relayer: { transportClose(): Promise<void> }; heartbeat: { stop(): void } } }
    }
  }
  await wcProvider?.disconnect?.().catch(() => {})
  await wcProvider?.signer?.client.core.relayer.transportClose().catch(() => {})
  wcProvider?.signer?.client.core.heartbeat.stop()
  await dapp?.stop()
  await anvil?.stop()
})

describe(`@wagmi/connectors ${installedVersion('@wagmi/connectors')} walletConnect (@wagmi/core ${installedVersion('@wagmi/core')})`, () => {
  it('connect: wagmi sees our account on the anvil chain', () => {
    expect(account).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')
    expect(getAccount(config)).toMatchObject({
      status: 'connected',
      chainId: anvil.chainId,
      address: account,
    })
  })

  it('signMessage (personal_sign [message, address]): a signature that recovers to the account', async () => {
    const signature = await signMessage(config, { message: 'Hello from wagmi' })
    expect(dapp.received.at(-1)).toMatchObject({
      chainId: `eip155:${anvil.chainId}`,
      method: 'personal_sign',
      params: [toHex('Hello from wagmi'), account],
    })
    expect(recoverPersonalSignature({ data: toHex('Hello from wagmi'), signature })).toBe(
      account.toLowerCase(),
    )
  })

  it('signTypedData (eth_signTypedData_v4 [address, JSON string]): a signature that recovers to the account', async () => {
    const signature = await signTypedData(config, mail)
    const sent = dapp.received.at(-1)!
    expect(sent.method).toBe('eth_signTypedData_v4')
    // viem sends the typed data as a JSON string (with EIP712Domain added), not as an object.
    expect(sent.params).toEqual([account, expect.any(String)])
    expect(JSON.parse((sent.params as string[])[1]!)).toMatchObject({ primaryType: 'Mail' })
    const recovered = recoverTypedSignature({
      data: { ...mail, types: { EIP712Domain: eip712Domain, ...mail.types } } as never,
      signature,
      version: SignTypedDataVersion.V4,
    })
    expect(recovered).toBe(account.toLowerCase())
  })

  it('sendTransaction (eth_sendTransaction with the gas viem estimated): the hash of a mined transfer', async () => {
    const chain = createPublicClient({ transport: http(anvil.url) })
    const before = await chain.getBalance({ address: recipient })
    const hash = await sendTransaction(config, { to: recipient, value: parseEther('0.25') })
    expect(dapp.received.at(-1)).toMatchObject({
      method: 'eth_sendTransaction',
      params: [{ from: account, to: recipient, value: toHex(parseEther('0.25')) }],
    })
    const receipt = await chain.waitForTransactionReceipt({ hash })
    expect(receipt.status).toBe('success')
    expect(receipt.from).toBe(account.toLowerCase())
    expect((await chain.getBalance({ address: recipient })) - before).toBe(parseEther('0.25'))
  })

  it('eth_signTypedData_v4 with the typed data as a JSON string and as an object: the same signature', async () => {
    const data = { ...mail, types: { EIP712Domain: eip712Domain, ...mail.types } }
    const asString = await provider.request({
      method: 'eth_signTypedData_v4',
      params: [account, JSON.stringify(data)],
    } as never)
    const asObject = await provider.request({
      method: 'eth_signTypedData_v4',
      params: [account, data],
    } as never)
    expect(asObject).toBe(asString)
    expect(
      recoverTypedSignature({
        data: data as never,
        signature: asString as string,
        version: SignTypedDataVersion.V4,
      }),
    ).toBe(account.toLowerCase())
  })

  it('personal_sign is signed in either order, as dapps in the wild send it, with the same signature', async () => {
    const message = toHex('either order')
    const signature = (await provider.request({
      method: 'personal_sign',
      params: [message, account],
    })) as string
    expect(recoverPersonalSignature({ data: message, signature })).toBe(account.toLowerCase())
    // Some old dapps send the address first; read so only when the message cannot be an address
    // (src/eip155/methods/personal_sign.ts).
    const reversed = await provider.request({ method: 'personal_sign', params: [account, message] } as never)
    expect(reversed).toBe(signature)
  })

  it('the wallet side reported no SDK failure (attachWalletKit onError)', () => {
    expect(dapp.walletErrors).toEqual([])
  })
})
