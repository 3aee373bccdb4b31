import { createHash } from 'node:crypto'
import { WalletKit } from '@reown/walletkit'
import { Address, Cell, contractAddress, loadStateInit } from '@ton/core'
import { initializeWalletConnect, TonConnect, type Wallet } from '@tonconnect/sdk'
import { SignClient } from '@walletconnect/sign-client'
import type { AuthTypes, SessionTypes } from '@walletconnect/types'
import UniversalProvider from '@walletconnect/universal-provider'
import { isCacaoBoundToRequest, validateSignedCacao } from '@walletconnect/utils'
import nacl from 'tweetnacl'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Review } from '../../src/core/review.js'
import { createWalletRpc, type WalletRpc } from '../../src/createWalletRpc.js'
import { eip155, mnemonicKeys } from '../../src/eip155/index.js'
import { solana, solanaKeys, solanaMainnet } from '../../src/solana/index.js'
import { ton, tonKeys } from '../../src/ton/index.js'
import { verifyCacao, verifyTonProof } from '../../src/verify/index.js'
import {
  attachWalletKit,
  type SessionProposalReview,
  type WalletKitAdapter,
} from '../../src/walletkit/index.js'
import { closeSdkClients, type LocalRelay, relayCore, startLocalRelay } from './localRelay.js'

/**
 * Connect-time requests between the real SDKs over the local relay: a dapp's `SignClient` /
 * `UniversalProvider` (`connect({ authentication })`, what AppKit's one-click auth sends) and
 * @tonconnect/sdk's WalletConnect connector (ton_proof), against the real `WalletKit` with `attachWalletKit`.
 */
const mnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const tonMnemonic =
  'hospital stove relief fringe tongue always charge angry urge sentence again match nerve inquiry senior coconut label tumble carry category beauty bean road solution'
// BIP-44 m/44'/60'/0'/0/0 of the mnemonic above (a spec vector, not our output).
const ethereumAccount = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94'
const dappUrl = 'https://app.example.com'

let relay: LocalRelay
let wallet: WalletRpc
let walletKit: InstanceType<typeof WalletKit>
let adapter: WalletKitAdapter
const reviews: Review[] = []
const proposals: SessionProposalReview[] = []
const adapterErrors: unknown[] = []
/**
 * The local relay runs no Verify server: every proposal's origin is `UNKNOWN`, a `danger` for a sign-in at
 * connect. This wallet lets its user approve that (as one whose users open the sites themselves might); one test
 * empties the list to show the default refusal.
 */
const unverifiedSignIns = ['siwe.origin_unverified', 'siws.origin_unverified', 'ton_proof.origin_unverified']
const allowDangerous = [...unverifiedSignIns]
const dapps: Array<InstanceType<typeof SignClient>> = []

beforeAll(async () => {
  relay = await startLocalRelay()
  wallet = createWalletRpc({
    namespaces: [
      eip155({ keys: mnemonicKeys({ mnemonic }), chains: [1, 10] }),
      ton({ keys: tonKeys.fromMnemonic(tonMnemonic), chains: ['ton:-239'] }),
      solana({ keys: solanaKeys.fromMnemonic(mnemonic), chains: [solanaMainnet] }),
    ],
    approve: (review) => {
      reviews.push(review)
      return true
    },
    policy: { allowDangerous },
  })
  walletKit = await WalletKit.init({
    core: relayCore(relay, 'wallet'),
    metadata: { name: 'Test Wallet', description: '', url: 'https://wallet.example', icons: [] },
  })
  adapter = attachWalletKit(walletKit, wallet, {
    approveSession: (proposal) => {
      proposals.push(proposal)
      return true
    },
    onError: (error) => adapterErrors.push(error),
  })
})

afterAll(async () => {
  adapter?.detach()
  await wallet?.close()
  await closeSdkClients([...dapps, walletKit])
  await relay?.close()
})

async function dappClient(url = dappUrl) {
  const dapp = await SignClient.init({
    core: relayCore(relay, 'dapp'),
    metadata: { name: 'Example dapp', description: '', url, icons: [] },
    logger: 'silent',
  })
  dapps.push(dapp)
  return dapp
}

async function connectWith(
  authentication: AuthTypes.AuthenticateParams[] | unknown[],
): Promise<SessionTypes.Struct> {
  const dapp = await dappClient()
  const { uri, approval } = await dapp.connect({
    optionalNamespaces: {
      eip155: { chains: ['eip155:1', 'eip155:10'], methods: ['personal_sign'], events: ['accountsChanged'] },
    },
    authentication: authentication as never,
  })
  if (!uri) throw new Error('no pairing uri')
  await walletKit.pair({ uri })
  return approval()
}

const signIn = {
  domain: 'app.example.com',
  chains: ['eip155:1', 'eip155:10'],
  nonce: 'n0nce4connect',
  uri: 'https://app.example.com/login',
  statement: 'Sign in to Example with your wallet.',
}

describe('one-click auth (CAIP-122 authentication inside the proposal)', () => {
  it('answers a CACAO per served chain that sign-client’s own verifier and verifyCacao accept', async () => {
    const session = await connectWith([signIn])
    const cacaos = session.authentication ?? []
    expect(cacaos.map((cacao) => cacao.p.iss.toLowerCase())).toEqual([
      `did:pkh:eip155:1:${ethereumAccount.toLowerCase()}`,
      `did:pkh:eip155:10:${ethereumAccount.toLowerCase()}`,
    ])
    for (const cacao of cacaos) {
      expect(cacao.s.t).toBe('eip191')
      expect(await validateSignedCacao({ cacao })).toBe(true)
      expect(
        isCacaoBoundToRequest({
          cacao,
          request: { domain: signIn.domain, nonce: signIn.nonce, uri: signIn.uri, chains: signIn.chains },
        }),
      ).toEqual({ valid: true })
      expect(verifyCacao(cacao, { domain: signIn.domain, nonce: signIn.nonce })).toEqual({ valid: true })
    }
    // The connect review showed what would be proven; each signature went through personal_sign's own review.
    const review = proposals.at(-1)?.requests?.authentication[0]
    expect(review?.statement).toBe(signIn.statement)
    expect(review?.proofs.map((proof) => proof.chainId)).toEqual(['eip155:1', 'eip155:10'])
    expect(review?.proofs[0]?.message).toContain(
      'app.example.com wants you to sign in with your Ethereum account:',
    )
    const signed = reviews.slice(-2)
    expect(
      signed.map((entry) => [entry.method, entry.signIn?.domain, entry.context?.['session proposal']]),
    ).toEqual([
      ['personal_sign', 'app.example.com', String(proposals.at(-1)?.id)],
      ['personal_sign', 'app.example.com', String(proposals.at(-1)?.id)],
    ])
  })

  it('signs no CACAO for a foreign domain: danger in the review, the session still settles', async () => {
    const before = reviews.length
    const session = await connectWith([
      { ...signIn, domain: 'wallet-drainer.example', uri: 'https://wallet-drainer.example/' },
    ])
    expect(session.authentication).toBeUndefined()
    expect(session.namespaces.eip155?.accounts).toHaveLength(2)
    const review = proposals.at(-1)?.requests?.authentication[0]
    expect(
      review?.warnings.filter((warning) => warning.severity === 'danger').map((warning) => warning.code),
    ).toEqual(['siwe.origin_unverified', 'siwe.domain_mismatch', 'siwe.uri_mismatch'])
    // Refused by the router's policy before the wallet's approve was even asked.
    expect(reviews).toHaveLength(before)
  })

  it('signs no CACAO when Verify did not confirm the origin and the policy does not allow it; the session settles', async () => {
    const before = reviews.length
    allowDangerous.length = 0
    try {
      const session = await connectWith([signIn])
      expect(session.authentication).toBeUndefined()
      expect(session.namespaces.eip155?.accounts).toHaveLength(2)
      const review = proposals.at(-1)?.requests?.authentication[0]
      expect(proposals.at(-1)?.originValidation).toBe('UNKNOWN')
      expect(review?.warnings).toEqual([
        {
          code: 'siwe.origin_unverified',
          severity: 'danger',
          message: expect.stringContaining('The Verify API did not confirm'),
        },
      ])
      expect(review?.proofs).toHaveLength(2)
      expect(reviews).toHaveLength(before)
    } finally {
      allowDangerous.push(...unverifiedSignIns)
    }
  })

  it('refuses malformed or expired entries with a reason, signs the good one beside them', async () => {
    const session = await connectWith([
      { ...signIn, exp: '2001-01-01T00:00:00Z' },
      { ...signIn, chains: ['not a chain'] },
      { ...signIn, statement: 'line one\nURI: https://evil.example' },
      signIn,
    ])
    const refused = proposals.at(-1)?.requests?.authentication.map((entry) => entry.refused)
    expect(refused?.[0]).toMatch(/expired/)
    expect(refused?.[1]).toMatch(/chains\[0\].*CAIP-2/)
    expect(refused?.[2]).toMatch(/several lines/)
    expect(refused?.[3]).toBeUndefined()
    expect(session.authentication).toHaveLength(2)
  })
})

describe('UniversalProvider connect({ authentication }) on solana', () => {
  it('answers a Sign In With Solana CACAO (Ed25519) that verifyCacao accepts; sign-client offers no verifier for it', async () => {
    const provider = await UniversalProvider.init({ client: (await dappClient()) as never, logger: 'silent' })
    provider.on('display_uri', (uri: string) => void walletKit.pair({ uri }))
    const request = { ...signIn, chains: [solanaMainnet], nonce: 'solanaNonce42' }
    const session = await provider.connect({
      optionalNamespaces: {
        solana: { chains: [solanaMainnet], methods: ['solana_signMessage'], events: [] },
      },
      authentication: [request] as never,
    })
    const [cacao] = session?.authentication ?? []
    if (!cacao) throw new Error('no CACAO')
    const address = session?.namespaces.solana?.accounts[0]?.split(':')[2]
    expect(cacao.p.iss).toBe(`did:pkh:${solanaMainnet}:${address}`)
    expect(cacao.s.t).toBe('solana:ed25519')
    expect(
      verifyCacao(cacao, { domain: signIn.domain, nonce: request.nonce, chains: [solanaMainnet] }),
    ).toEqual({
      valid: true,
    })
    // The text signed is Sign In With Solana's (cluster name as Chain ID), which solana_signMessage parsed.
    const signed = reviews.at(-1)
    expect(signed?.method).toBe('solana_signMessage')
    expect(signed?.signIn).toMatchObject({
      domain: 'app.example.com',
      chain: 'mainnet',
      nonce: request.nonce,
    })
    // WalletConnect's own validateSignedCacao knows only eip191/eip1271: it answers false, never a throw.
    expect(await validateSignedCacao({ cacao })).toBe(false)
    await provider.disconnect().catch(() => {})
  })
})

/**
 * AppKit's `UniversalConnector` (@reown/appkit-universal-connector 1.8.19, dist/esm/src/UniversalConnector.js) as
 * @tonconnect/sdk drives it, with the real `UniversalProvider` on the local relay. Only its AppKit modal (a QR
 * view opened before and closed after `provider.connect`) is left out: it is UI and needs a browser.
 */
class HeadlessUniversalConnector {
  constructor(
    readonly provider: InstanceType<typeof UniversalProvider>,
    private readonly config: {
      networks: Array<{
        namespace: string
        methods?: string[]
        events?: string[]
        chains: Array<{ caipNetworkId: string }>
      }>
    },
  ) {}
  static async init(config: HeadlessUniversalConnector['config'] & { metadata: { url: string } }) {
    const client = await dappClient(config.metadata.url)
    const provider = await UniversalProvider.init({ client: client as never, logger: 'silent' })
    provider.on('display_uri', (uri: string) => void walletKit.pair({ uri }))
    return new HeadlessUniversalConnector(provider, config)
  }
  async connect(params: Record<string, unknown>) {
    const namespaces = Object.fromEntries(
      this.config.networks.map((network) => [
        network.namespace,
        {
          ...network,
          methods: network.methods ?? [],
          events: network.events ?? [],
          chains: network.chains.map((chain) => chain.caipNetworkId),
        },
      ]),
    )
    const session = await this.provider.connect({ ...params, optionalNamespaces: namespaces as never })
    if (!session) throw new Error('Error connecting to wallet: No session found')
    return { session }
  }
  async disconnect() {
    await this.provider.disconnect()
  }
  async request(params: never, chain: string) {
    return this.provider.request(params, chain)
  }
}

function memoryStorage() {
  const items = new Map<string, string>()
  return {
    setItem: async (key: string, value: string) => void items.set(key, value),
    getItem: async (key: string) => items.get(key) ?? null,
    removeItem: async (key: string) => void items.delete(key),
  }
}

describe('@tonconnect/sdk 3.4.1 WalletConnect connector: ton_proof', () => {
  it('its connect event carries a ton_proof that verifyTonProof and tweetnacl + @ton/core accept', async () => {
    initializeWalletConnect(HeadlessUniversalConnector as never, {
      projectId: '0123456789abcdef0123456789abcdef',
      metadata: { name: 'Example TON dapp', description: '', url: dappUrl, icons: [] },
    })
    const tonConnect = new TonConnect({
      manifestUrl: `${dappUrl}/tonconnect-manifest.json`,
      storage: memoryStorage(),
    })
    const payload = 'backend-issued-payload-7f3a'
    const connected = new Promise<Wallet>((resolve, reject) =>
      tonConnect.onStatusChange((status) => status && resolve(status), reject),
    )
    tonConnect.connect({ type: 'wallet-connect' } as never, { request: { tonProof: payload } })
    const connectedWallet = await connected
    const proofItem = connectedWallet.connectItems?.tonProof
    if (!proofItem || !('proof' in proofItem)) throw new Error(`no ton_proof: ${JSON.stringify(proofItem)}`)
    const { proof } = proofItem
    const account = connectedWallet.account
    expect(proof.domain).toEqual({ lengthBytes: 'app.example.com'.length, value: 'app.example.com' })
    expect(proof.payload).toBe(payload)
    expect(
      verifyTonProof(proof, {
        address: account.address,
        publicKey: account.publicKey ?? '',
        stateInit: account.walletStateInit,
        domains: ['app.example.com'],
        payload,
      }),
    ).toEqual({ valid: true })

    // Independently: the TON Connect spec's message with @ton/core and node:crypto, Ed25519 with tweetnacl, the
    // key read from the StateInit whose hash is the address.
    const init = loadStateInit(Cell.fromBase64(account.walletStateInit).beginParse())
    const address = Address.parse(account.address)
    expect(contractAddress(address.workChain, init).equals(address)).toBe(true)
    const data = init.data!.beginParse()
    data.loadBit() // v5r1: is_signature_allowed
    data.loadUint(32)
    data.loadUint(32)
    const publicKey = data.loadBuffer(32)
    expect(publicKey.toString('hex')).toBe(account.publicKey)
    const le32 = Buffer.alloc(4)
    le32.writeUInt32LE(proof.domain.lengthBytes)
    const le64 = Buffer.alloc(8)
    le64.writeBigUInt64LE(BigInt(proof.timestamp))
    const be32 = Buffer.alloc(4)
    be32.writeInt32BE(address.workChain)
    const message = Buffer.concat([
      Buffer.from('ton-proof-item-v2/'),
      be32,
      address.hash,
      le32,
      Buffer.from(proof.domain.value),
      le64,
      Buffer.from(proof.payload),
    ])
    const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest()
    const digest = sha(Buffer.concat([Buffer.from([0xff, 0xff]), Buffer.from('ton-connect'), sha(message)]))
    expect(nacl.sign.detached.verify(digest, Buffer.from(proof.signature, 'base64'), publicKey)).toBe(true)
    expect(Math.abs(proof.timestamp - Date.now() / 1000)).toBeLessThan(600)

    // What the wallet was asked, and a tampered payload the verifier refuses.
    expect(reviews.at(-1)).toMatchObject({ method: 'ton_proof', chainId: 'ton:-239', origin: dappUrl })
    expect(
      verifyTonProof(
        { ...proof, payload: 'other' },
        {
          address: account.address,
          publicKey: account.publicKey ?? '',
          stateInit: account.walletStateInit,
          domains: ['app.example.com'],
          payload: 'other',
        },
      ),
    ).toMatchObject({ valid: false, reason: 'the Ed25519 signature does not verify' })
    tonConnect.pauseConnection?.()
  })

  it('reported no SDK failure on the wallet side, only the foreign-domain sign-ins the policy refused', () => {
    expect(adapterErrors.map(String)).toEqual([
      'Error: connect-time sign-in 1 on eip155:1 not done: Refused by wallet policy.',
      'Error: connect-time sign-in 1 on eip155:10 not done: Refused by wallet policy.',
      'Error: connect-time sign-in 1 on eip155:1 not done: Refused by wallet policy.',
      'Error: connect-time sign-in 1 on eip155:10 not done: Refused by wallet policy.',
    ])
  })
})
