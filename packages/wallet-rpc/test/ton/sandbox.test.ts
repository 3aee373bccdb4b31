import { Address, beginCell, Cell, comment, fromNano, loadMessage, type Message } from '@ton/core'
import { EmulationError } from '@ton/sandbox'
import { jettonTransferBody } from '@wallet-rpc/devchains/tonJetton'
import { startTonSandbox, type TonSandbox } from '@wallet-rpc/devchains/tonSandbox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JsonRpcFailure, JsonRpcSuccess } from '../../src/core/jsonrpc.js'
import { type TonChainProvider, type TonEmulationResult, walletContract } from '../../src/ton/index.js'
import { bounceableDestination, plainDestination, request, tonWallet } from './fixtures.js'

/**
 * The proof that our StateInit and external messages are what the real contracts accept: the @ton/sandbox
 * emulator runs the v4R2 / v5R1 code on the TVM, offline.
 */
const start = 1_700_000_000

const jettonTransfer = beginCell()
  .storeUint(0x0f8a7ea5, 32)
  .storeUint(9, 64)
  .storeCoins(12345n)
  .storeAddress(Address.parse(plainDestination))
  .storeAddress(null)
  .storeBit(0)
  .storeCoins(1n)
  .storeBit(0)
  .storeUint(0, 32)
  .storeStringTail('gm')
  .endCell()

function outMessages(sandbox: TonSandbox, index: number): Message[] {
  const transaction = sandbox.sent[index]!.transactions[0]!
  return [...transaction.outMessages.values()]
}

function assertSuccess(sandbox: TonSandbox, index: number) {
  const description = sandbox.sent[index]!.transactions[0]!.description
  expect(description.type).toBe('generic')
  if (description.type !== 'generic') return
  expect(description.computePhase.type).toBe('vm')
  if (description.computePhase.type === 'vm') {
    expect(description.computePhase.success).toBe(true)
    expect(description.computePhase.exitCode).toBe(0)
  }
  expect(description.actionPhase?.success).toBe(true)
  expect(description.aborted).toBe(false)
}

for (const version of ['v4r2', 'v5r1'] as const) {
  const codes = version === 'v4r2' ? { seqno: 33, expired: 36 } : { seqno: 133, expired: 136 }

  describe(`${version} in @ton/sandbox`, () => {
    let sandbox: TonSandbox
    let chainNow = start
    let walletNow = start
    let seqnoSkew = 0
    let wallet: ReturnType<typeof tonWallet>
    let address: Address
    const bocs: string[] = []
    const emulations: TonEmulationResult[] = []
    let afterEmulation: (() => Promise<void>) | undefined

    beforeAll(async () => {
      sandbox = await startTonSandbox({ clock: () => chainNow * 1000 })
      // Lets a test make the wallet read a wrong seqno while the chain stays honest.
      const skewed: TonChainProvider = {
        ...sandbox.provider,
        getSeqno: async (at) => (await sandbox.provider.getSeqno(at)) + seqnoSkew,
        emulate: async (request) => {
          const result = await sandbox.provider.emulate!(request)
          emulations.push(result)
          await afterEmulation?.()
          return result
        },
      }
      wallet = tonWallet({
        wallet: version,
        chains: ['ton:-239'],
        providers: { 'ton:-239': skewed },
        clock: () => walletNow * 1000,
        // Some messages below go, bounceable, to an account that does not exist: the emulation shows them
        // bouncing (the danger ton.emulation_failed), which this wallet lets its user approve.
        allowDangerous: ['ton.emulation_failed'],
      })
      const properties = await wallet.rpc.sessionProperties()
      // Deploy from our StateInit: the address is its hash.
      address = new Address(0, Cell.fromBase64(properties.ton_getStateInit!).hash())
      expect((await wallet.rpc.accounts('ton:-239'))[0]).toBe(
        address.toString({ bounceable: false, testOnly: false, urlSafe: true }),
      )
      await sandbox.fund(address, 5_000_000_000n)
      expect((await sandbox.blockchain.getContract(address)).accountState?.type).toBe('uninit')
    })

    afterAll(async () => {
      await sandbox.stop()
      await wallet.rpc.close()
    })

    const send = (params: unknown, id: number) =>
      wallet.rpc.handle({
        chainId: 'ton:-239',
        request: request('ton_sendMessage', params, id),
        origin: 'https://dapp.example',
      })

    /** Signs and broadcasts one small transfer, which the contract must refuse with `exitCode`. */
    async function expectRefusedByContract(id: number, exitCode: number) {
      const response = (await send(
        { messages: [{ address: plainDestination, amount: 1 }] },
        id,
      )) as JsonRpcFailure
      expect(response.error.code).toBe(-32603)
      expect(response.error.data).toEqual({
        reason: `external message not accepted by the contract, exit code ${exitCode}`,
      })
    }

    it('first message: carries the StateInit, deploys the wallet, sends exactly the requested messages', async () => {
      const requested = [
        { address: plainDestination, amount: '100000000' },
        {
          address: bounceableDestination,
          amount: 2000000,
          payload: comment('thanks').toBoc().toString('base64'),
        },
        { address: bounceableDestination, amount: '3', payload: jettonTransfer.toBoc().toString('base64') },
      ]
      const response = await send([{ valid_until: start + 120, messages: requested }], 1)
      const boc = (response as JsonRpcSuccess<string>).result
      expect(typeof boc).toBe('string')
      bocs.push(boc)

      const external = loadMessage(Cell.fromBase64(boc).beginParse())
      expect(external.info.type).toBe('external-in')
      expect(external.init).not.toBeNull()
      expect(external.info.dest?.toString()).toBe(address.toString())

      assertSuccess(sandbox, 0)
      const out = outMessages(sandbox, 0)
      expect(out).toHaveLength(3)
      out.forEach((message, index) => {
        if (message.info.type !== 'internal') throw new Error('expected internal')
        const wanted = requested[index]!
        expect(message.info.dest.equals(Address.parse(wanted.address))).toBe(true)
        expect(message.info.value.coins).toBe(BigInt(wanted.amount))
        expect(message.info.bounce).toBe(wanted.address.startsWith('EQ'))
        expect(message.init ?? null).toBeNull()
        if (wanted.payload === undefined) {
          // No payload requested, none invented.
          expect(message.body.bits.length).toBe(0)
          expect(message.body.refs).toHaveLength(0)
        } else {
          expect(message.body.equals(Cell.fromBase64(wanted.payload))).toBe(true)
        }
      })
      const contract = await sandbox.blockchain.getContract(address)
      expect(contract.accountState?.type).toBe('active')
      expect((await sandbox.blockchain.runGetMethod(address, 'seqno')).stackReader.readNumber()).toBe(1)
      // The review saw the decoded jetton transfer and the comment.
      const review = JSON.stringify(wallet.reviews.at(-1))
      expect(review).toContain('Jetton transfer')
      expect(review).toContain('12345')
      expect(review).toContain('thanks')
      // And the emulation (on @ton/sandbox, of the unsigned message) saw what the chain then did: both bounceable
      // messages reach an account that does not exist; the 0.002 TON bounces back, the 3 nanotons cannot.
      const destination = Address.parse(bounceableDestination).toString({ urlSafe: true })
      const failed = wallet.reviews
        .at(-1)!
        .warnings.find((warning) => warning.code === 'ton.emulation_failed')
      expect(failed?.message).toContain(
        `${destination}: compute phase skipped (no-state), its coins bounce back minus fees; ${destination}: compute phase skipped (no-gas).`,
      )
      const bouncePhases = sandbox.sent[0]!.transactions.flatMap((transaction) =>
        transaction.description.type === 'generic' && transaction.description.bouncePhase
          ? [transaction.description.bouncePhase.type]
          : [],
      )
      expect(bouncePhases).toEqual(['ok', 'no-funds'])
    })

    it('a later message: no StateInit, seqno advances, outgoing message as requested', async () => {
      chainNow += 30
      walletNow += 30
      const response = await send({ messages: [{ address: bounceableDestination, amount: 7 }] }, 2)
      const boc = (response as JsonRpcSuccess<string>).result
      bocs.push(boc)
      expect(loadMessage(Cell.fromBase64(boc).beginParse()).init).toBeNull()
      assertSuccess(sandbox, 1)
      const [message] = outMessages(sandbox, 1)
      if (message?.info.type !== 'internal') throw new Error('expected one internal message')
      expect(message.info.dest.equals(Address.parse(bounceableDestination))).toBe(true)
      expect(message.info.value.coins).toBe(7n)
      expect(message.info.bounce).toBe(true)
      expect((await sandbox.blockchain.runGetMethod(address, 'seqno')).stackReader.readNumber()).toBe(2)
    })

    it(`a replayed message is rejected by the contract (exit ${codes.seqno})`, async () => {
      for (const boc of bocs) {
        const error = await sandbox.blockchain.sendMessage(Cell.fromBase64(boc)).catch((e: unknown) => e)
        expect(error).toBeInstanceOf(EmulationError)
        expect((error as EmulationError).exitCode).toBe(codes.seqno)
      }
    })

    it(`a message signed for a wrong seqno is rejected by the contract (exit ${codes.seqno})`, async () => {
      seqnoSkew = 1
      try {
        await expectRefusedByContract(3, codes.seqno)
      } finally {
        seqnoSkew = 0
      }
    })

    it(`an expired message is rejected by the contract (exit ${codes.expired})`, async () => {
      // The wallet signs valid_until = its now + 600 at most; the chain is already past that.
      chainNow = walletNow + 601
      await expectRefusedByContract(4, codes.expired)
      walletNow = chainNow
      expect((await sandbox.blockchain.runGetMethod(address, 'seqno')).stackReader.readNumber()).toBe(2)
    })

    it('accepts the next message once the seqno and clocks are right', async () => {
      const response = await send({ messages: [{ address: plainDestination, amount: 1 }] }, 5)
      expect('result' in response).toBe(true)
      expect((await sandbox.blockchain.runGetMethod(address, 'seqno')).stackReader.readNumber()).toBe(3)
    })

    it('a message carrying a StateInit deploys its destination; up to the wallet limit in one request', async () => {
      // The destination is another wallet contract: its address is the hash of the StateInit we attach.
      const child = walletContract(new Uint8Array(32).fill(9), { version: 'v4r2' })
      const childAddress = child.address.toString({ bounceable: true, urlSafe: true })
      const count = version === 'v4r2' ? 4 : 6
      const requested = [
        { address: childAddress, amount: '50000000', stateInit: child.stateInitBoc },
        ...Array.from({ length: count - 1 }, (_, index) => ({
          address: plainDestination,
          amount: String(index + 1),
        })),
      ]
      const response = await send({ messages: requested }, 6)
      expect('result' in response).toBe(true)
      assertSuccess(sandbox, sandbox.sent.length - 1)
      expect(outMessages(sandbox, sandbox.sent.length - 1)).toHaveLength(count)
      expect((await sandbox.blockchain.getContract(child.address)).accountState?.type).toBe('active')
      expect(JSON.stringify(wallet.reviews.at(-1)?.warnings)).toContain('ton.deploy')
      expect(JSON.stringify(wallet.reviews.at(-1)?.warnings)).not.toContain('ton.state_init_mismatch')
    })

    it('a jetton transfer: the emulated TON and jetton changes equal the balances after the real send', async () => {
      const jetton = await sandbox.deployJetton({ name: 'Test Token', symbol: 'TST', decimals: 6 })
      await jetton.mint(address, 1_000_000_000n)
      const jettonWallet = await jetton.walletOf(address)
      const payload = jettonTransferBody({
        amount: 12_500_000n,
        destination: Address.parse(plainDestination),
        responseDestination: address,
      })
      const tonBefore = (await sandbox.blockchain.getContract(address)).balance
      const jettonsBefore = await jetton.balanceOf(address)
      // The emulation runs on a snapshot and restores it: between it and the real send, nothing has moved.
      const betweenEmulationAndSend: bigint[] = []
      afterEmulation = async () => {
        betweenEmulationAndSend.push((await sandbox.blockchain.getContract(address)).balance)
        betweenEmulationAndSend.push(await jetton.balanceOf(address))
      }
      const response = await send(
        {
          messages: [
            {
              address: jettonWallet.toString({ bounceable: true, urlSafe: true }),
              amount: '100000000',
              payload: payload.toBoc().toString('base64'),
            },
          ],
        },
        7,
      )
      expect('result' in response).toBe(true)
      const tonChange = (await sandbox.blockchain.getContract(address)).balance - tonBefore
      const jettonChange = (await jetton.balanceOf(address)) - jettonsBefore
      expect(jettonChange).toBe(-12_500_000n)
      // The excess came back: the wallet paid fees, not the 0.1 TON attached.
      expect(tonChange < 0n && tonChange > -100_000_000n).toBe(true)
      const emulated = emulations.at(-1)!
      expect(emulated).toEqual({
        emulator: '@ton/sandbox',
        ton: tonChange,
        jettons: [{ master: jetton.master.toRawString(), amount: jettonChange, symbol: 'TST', decimals: 6 }],
        nfts: [],
        // The notify to a recipient that does not exist (1 nanoton) aborts: the normal end of a transfer.
        failures: [],
      })
      const review = wallet.reviews.at(-1)!
      expect(review.warnings).toEqual([])
      const master = jetton.master.toString({ urlSafe: true })
      expect(JSON.stringify(review.items)).toContain(
        `{"label":"You send","value":"-${fromNano(-tonChange)} TON"},{"label":"You send","value":"-12.5 TST (token ${master}, symbol as it reports)"}`,
      )
      expect(betweenEmulationAndSend).toEqual([tonBefore, jettonsBefore])
      afterEmulation = undefined
    })
  })
}
