import { describe, expect, it } from 'vitest'
import { quoteLongIntegers } from '../../../src/core/http.js'
import {
  EmulationAnswerError,
  emulationFailure,
  maxTraceEntries,
} from '../../../src/ton/emulation/outcome.js'
import { readTonapiAnswer } from '../../../src/ton/emulation/tonapiAnswer.js'
import { readToncenterAnswer } from '../../../src/ton/emulation/toncenterAnswer.js'
import { key, recorded } from './answers.js'

const usdtMaster = '0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe'

/** toncenter's answer for the recorded wallet. */
function toncenter(name: string) {
  const { wallet, answer } = recorded(name)
  return readToncenterAnswer(answer, key(wallet), 'toncenter (test)')
}

function tonapi(name: string) {
  const { wallet, answer } = recorded(name)
  return readTonapiAnswer(answer, key(wallet), 'tonapi (test)')
}

describe('toncenter emulator answers (recorded)', () => {
  it('a TON transfer: the change is the 1 TON sent plus every fee (last balance after minus first before)', () => {
    const result = toncenter('toncenter-ton-sent')
    // 73556628924 before, 72554299316 after: 1 TON and 2329608 nanotons of fees.
    expect(result).toEqual({
      emulator: 'toncenter (test)',
      ton: -1_002_329_608n,
      jettons: [],
      nfts: [],
      failures: [],
    })
  })

  it('a jetton transfer: USD₮ per master, symbol and decimals from jetton_masters metadata', () => {
    const result = toncenter('toncenter-usdt-sent')
    expect(result.jettons).toEqual([{ master: usdtMaster, amount: -9_000_000n, symbol: 'USD₮', decimals: 6 }])
    // 0.101 TON attached, 0.096739369 back as the excess: the fees of the whole trace.
    expect(result.ton).toBe(288_678_277n - 296_295_471n)
    expect(result.failures).toEqual([])
  })

  it('jettons received (a real emulateTrace answer): the aborted jetton_notify to the wallet is no failure', () => {
    const result = toncenter('toncenter-usdt-received')
    const notify = Object.values(recorded('toncenter-usdt-received').answer.transactions).find(
      // biome-ignore lint/suspicious/noExplicitAny: recorded JSON
      (tx: any) => tx.in_msg?.opcode === '0x7362d09c',
      // biome-ignore lint/suspicious/noExplicitAny: recorded JSON
    ) as any
    expect(notify.description.aborted).toBe(true)
    expect(result.failures).toEqual([])
    expect(result.jettons).toHaveLength(1)
    expect(result.jettons[0]).toMatchObject({ master: usdtMaster, symbol: 'USD₮', decimals: 6 })
    expect(result.jettons[0]!.amount > 0n).toBe(true)
    expect(result.ton).toBe(1_104_668_722n - 1_192_122_893n)
  })

  it('the aborted jetton_notify and ownership_assigned at the recipients (1 nanoton forwarded) are no failures', () => {
    for (const name of ['toncenter-ft-sent', 'toncenter-nft-sent']) {
      const { answer } = recorded(name)
      // biome-ignore lint/suspicious/noExplicitAny: recorded JSON
      const aborted = Object.values(answer.transactions).filter((tx: any) => tx.description.aborted)
      expect(aborted).toHaveLength(1)
      expect(toncenter(name).failures).toEqual([])
    }
  })

  it('1 nanoton to a wallet that cannot pay for gas (compute skipped, not bounceable, no body): credited, no failure', () => {
    expect(toncenter('toncenter-ton-1nanoton').failures).toEqual([])
  })

  it('an NFT transfer: item, collection, index, direction', () => {
    const result = toncenter('toncenter-nft-transfer')
    expect(result.nfts).toEqual([
      {
        item: '0:bdf0fbf297e3dde3c0189f7f3dc4057e1fb4113066ff9a9f0412b0e0715a4e7e',
        collection: '0:b774d95eb20543f186c06b371ab88ad704f7e256130caf96189368a7d0cb6ccf',
        index: '82003623148842611800048854158081695640922144133483046953867095880012292243080',
        direction: 'out',
      },
    ])
    expect(result.failures).toEqual([])
    expect(result.ton).toBe(-8_131_143n)
  })

  it('a bounce: the NFT item refuses (exit code 413) and sends the coins back; the failed transfer moves nothing', () => {
    const result = toncenter('toncenter-nft-bounce')
    expect(result.failures).toEqual([
      {
        account: '0:853de9f75afc0fd2c22bf82e33550b34dd423b4a0b05b3c9a50969c892328d2c',
        exitCode: 413,
        bounced: true,
        reason: 'compute phase failed',
      },
    ])
    expect(result.nfts).toEqual([])
    // 0.1 TON out, 0.0982004 back: what the failed attempt costs.
    expect(result.ton).toBe(-5_784_003n)
  })

  it('a message the balance cannot pay: skipped by the action phase, a failure of the wallet itself', () => {
    const { wallet } = recorded('toncenter-ton-skipped')
    expect(toncenter('toncenter-ton-skipped').failures).toEqual([
      {
        account: key(wallet),
        exitCode: undefined,
        bounced: false,
        reason: '1 outgoing message not sent (action phase)',
      },
    ])
  })

  it('missing metadata: the jetton is counted, its symbol and decimals unknown (shown in base units)', () => {
    const { wallet, answer } = recorded('toncenter-usdt-sent')
    delete answer.metadata
    expect(readToncenterAnswer(answer, key(wallet), 'x').jettons).toEqual([
      { master: usdtMaster, amount: -9_000_000n, symbol: undefined, decimals: undefined },
    ])
  })

  it('an answer it cannot read is an EmulationAnswerError, never a guess', () => {
    const { wallet, answer } = recorded('toncenter-ton-sent')
    const read =
      (value: unknown, account = key(wallet)) =>
      () =>
        readToncenterAnswer(value, account, 'x')
    expect(read({})).toThrow(EmulationAnswerError)
    expect(read(answer, '0:'.padEnd(66, '1'))).toThrow('no transaction of the wallet')
    const noBalance = structuredClone(answer)
    for (const tx of Object.values(noBalance.transactions))
      (tx as { account_state_after?: unknown }).account_state_after = null
    expect(read(noBalance)).toThrow('wallet balances are missing')
    const huge = { ...answer, actions: Array.from({ length: maxTraceEntries + 1 }, () => ({})) }
    expect(read(huge)).toThrow(`more than ${maxTraceEntries} actions`)
  })
})

describe('tonapi emulator answers (built from the recorded traces, openapi.yml shapes)', () => {
  it('a TON transfer: TonTransfer plus extra (the fees the actions do not show) is the same change toncenter shows', () => {
    expect(tonapi('tonapi-ton-sent')).toEqual({
      ...toncenter('toncenter-ton-sent'),
      emulator: 'tonapi (test)',
    })
    expect(recorded('tonapi-ton-sent').answer.event.extra).toBe(-2_329_608)
  })

  it('a jetton transfer: JettonTransfer with the jetton preview’s symbol and decimals', () => {
    expect(tonapi('tonapi-usdt-sent')).toEqual({
      ...toncenter('toncenter-usdt-sent'),
      emulator: 'tonapi (test)',
    })
  })

  it('an NFT transfer: NftItemTransfer (tonapi names the item only)', () => {
    const result = tonapi('tonapi-nft-transfer')
    expect(result.nfts).toEqual([
      {
        item: '0:bdf0fbf297e3dde3c0189f7f3dc4057e1fb4113066ff9a9f0412b0e0715a4e7e',
        collection: undefined,
        index: undefined,
        direction: 'out',
      },
    ])
    expect(result.ton).toBe(-8_131_143n)
  })

  it('a failed action: the failing transaction of its trace names the account, exit code and bounce', () => {
    const result = tonapi('tonapi-nft-bounce')
    expect(result.failures).toEqual([
      {
        account: '0:853de9f75afc0fd2c22bf82e33550b34dd423b4a0b05b3c9a50969c892328d2c',
        exitCode: 413,
        bounced: true,
        reason: 'NftItemTransfer failed: compute phase failed',
      },
    ])
    expect(result.nfts).toEqual([])
    // The bounce back (SmartContractExec, +0.0982004 TON) plus extra: the same cost toncenter shows.
    expect(result.ton).toBe(-5_784_003n)
  })

  it('int64 amounts beyond 2^53 are read exactly (the answer is parsed after quoteLongIntegers)', () => {
    const { wallet, answer } = recorded('tonapi-ton-sent')
    const text = JSON.stringify(answer).replace('"extra":-2329608', '"extra":-9007199254740993')
    const result = readTonapiAnswer(JSON.parse(quoteLongIntegers(text)), key(wallet), 'x')
    expect(result.ton).toBe(-9_007_199_254_740_993n - 1_000_000_000n)
  })

  it('an event about another account, or without extra, is not read', () => {
    const { wallet, answer } = recorded('tonapi-ton-sent')
    expect(() => readTonapiAnswer(answer, '0:'.padEnd(66, '2'), 'x')).toThrow('another account')
    const noExtra = structuredClone(answer)
    delete noExtra.event.extra
    expect(() => readTonapiAnswer(noExtra, key(wallet), 'x')).toThrow('no extra')
  })
})

describe('the failure rule', () => {
  const base = {
    account: '0:'.padEnd(66, 'a'),
    aborted: false,
    computeSkipped: false,
    computeSuccess: true,
    exitCode: 0,
    actionSuccess: true,
    actionResultCode: 0,
    skippedActions: 0,
    inOpcode: undefined,
    inBounce: true,
    bounced: false,
  }

  it('a refused call (exit code 132, bounced) is a failure; the same at excess / notify / ownership_assigned is not', () => {
    const refused = {
      ...base,
      aborted: true,
      computeSuccess: false,
      exitCode: 132,
      inOpcode: 0,
      bounced: true,
    }
    expect(emulationFailure(refused)).toEqual({
      account: base.account,
      exitCode: 132,
      bounced: true,
      reason: 'compute phase failed',
    })
    for (const opcode of [0x7362d09c, 0x05138d91, 0xd53276db]) {
      expect(emulationFailure({ ...refused, inOpcode: opcode })).toBeUndefined()
    }
  })

  it('a bounceable message to an account without code bounces: a failure; the same not bounceable is a plain credit', () => {
    const uninit = {
      ...base,
      aborted: true,
      computeSkipped: true,
      computeSkipReason: 'no_state',
      computeSuccess: undefined,
    }
    expect(emulationFailure({ ...uninit, bounced: true })?.reason).toBe('compute phase skipped (no_state)')
    expect(emulationFailure({ ...uninit, inBounce: false })).toBeUndefined()
    // A contract call (an opcode) that runs no code did not happen, bounceable or not.
    expect(emulationFailure({ ...uninit, inBounce: false, inOpcode: 0x12345678 })).toBeDefined()
  })

  it('a failed action phase reports its result code', () => {
    expect(emulationFailure({ ...base, actionSuccess: false, actionResultCode: 37 })).toMatchObject({
      exitCode: 37,
      reason: 'action phase failed',
    })
  })
})
