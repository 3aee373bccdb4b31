import { Address, beginCell, Cell, storeStateInit } from '@ton/core'
import { describe, expect, it } from 'vitest'
import { crc32, tonSignDataDigest, verifyTonSendMessage, verifyTonSignData } from '../../src/verify/index.js'

// ton-connect/kit packages/walletkit/src/contracts/w5/WalletV5R1.fixture.ts (Apache-2.0): key and v5R1 StateInit.
const publicKey = 'f6c450a16bb1c514e22f1977e390a3025599aa1e7b00068a6aacf2119484c1bd'
const v5StateInit =
  'te6cckECFgEAArEAAgE0ARUBFP8A9KQT9LzyyAsCAgEgAw4CAUgEBQLc0CDXScEgkVuPYyDXCx8gghBleHRuvSGCEHNpbnS9sJJfA+CCEGV4dG66jrSAINchAdB01yH6QDD6RPgo+kQwWL2RW+DtRNCBAUHXIfQFgwf0Dm+hMZEw4YBA1yFwf9s84DEg10mBAoC5kTDgcOIREAIBIAYNAgEgBwoCAW4ICQAZrc52omhAIOuQ64X/wAAZrx32omhAEOuQ64WPwAIBSAsMABezJftRNBx1yHXCx+AAEbJi+1E0NcKAIAAZvl8PaiaECAoOuQ+gLAEC8g8BHiDXCx+CEHNpZ2668uCKfxAB5o7w7aLt+yGDCNciAoMI1yMggCDXIdMf0x/TH+1E0NIA0x8g0x/T/9cKAAr5AUDM+RCaKJRfCtsx4fLAh98Cs1AHsPLQhFEluvLghVA2uvLghvgju/LQiCKS+ADeAaR/yMoAyx8BzxbJ7VQgkvgP3nDbPNgRA/btou37AvQEIW6SbCGOTAIh1zkwcJQhxwCzji0B1yggdh5DbCDXScAI8uCTINdKwALy4JMg1x0GxxLCAFIwsPLQiddM1zkwAaTobBKEB7vy4JPXSsAA8uCT7VXi0gABwACRW+Dr1ywIFCCRcJYB1ywIHBLiUhCx4w8g10oSExQAlgH6QAH6RPgo+kQwWLry4JHtRNCBAUHXGPQFBJ1/yMoAQASDB/RT8uCLjhQDgwf0W/LgjCLXCgAhbgGzsPLQkOLIUAPPFhL0AMntVAByMNcsCCSOLSHy4JLSAO1E0NIAURO68tCPVFAwkTGcAYEBQNch1woA8uCO4sjKAFjPFsntVJPywI3iABCTW9sx4ddM0ABRgAAAAD///4j7YihQtdjiinEXjLvxyFGBKszVDz2AA0U1VnkIykJg3qCxZgt/'
// @ton/ton 16.3.0 v4R2 code and the data cell for the same key (research/ton.md appendix B, computed).
const v4StateInit = beginCell()
  .store(
    storeStateInit({
      code: Cell.fromBase64(
        'te6cckECFAEAAtQAART/APSkE/S88sgLAQIBIAIPAgFIAwYC5tAB0NMDIXGwkl8E4CLXScEgkl8E4ALTHyGCEHBsdWe9IoIQZHN0cr2wkl8F4AP6QDAg+kQByMoHy//J0O1E0IEBQNch9AQwXIEBCPQKb6Exs5JfB+AF0z/IJYIQcGx1Z7qSODDjDQOCEGRzdHK6kl8G4w0EBQB4AfoA9AQw+CdvIjBQCqEhvvLgUIIQcGx1Z4MesXCAGFAEywUmzxZY+gIZ9ADLaRfLH1Jgyz8gyYBA+wAGAIpQBIEBCPRZMO1E0IEBQNcgyAHPFvQAye1UAXKwjiOCEGRzdHKDHrFwgBhQBcsFUAPPFiP6AhPLassfyz/JgED7AJJfA+ICASAHDgIBIAgNAgFYCQoAPbKd+1E0IEBQNch9AQwAsjKB8v/ydABgQEI9ApvoTGACASALDAAZrc52omhAIGuQ64X/wAAZrx32omhAEGuQ64WPwAARuMl+1E0NcLH4AFm9JCtvaiaECAoGuQ+gIYRw1AgIR6STfSmRDOaQPp/5g3gSgBt4EBSJhxWfMYQE+PKDCNcYINMf0x/THwL4I7vyZO1E0NMf0x/T//QE0VFDuvKhUVG68qIF+QFUEGT5EPKj+AAkpMjLH1JAyx9SMMv/UhD0AMntVPgPAdMHIcAAn2xRkyDXSpbTB9QC+wDoMOAhwAHjACHAAuMAAcADkTDjDQOkyMsfEssfy/8QERITAG7SB/oA1NQi+QAFyMoHFcv/ydB3dIAYyMsFywIizxZQBfoCFMtrEszMyXP7AMhAFIEBCPRR8qcCAHCBAQjXGPoA0z/IVCBHgQEI9FHyp4IQbm90ZXB0gBjIywXLAlAGzxZQBPoCFMtqEssfyz/Jc/sAAgBsgQEI1xj6ANM/MFIkgQEI9Fnyp4IQZHN0cnB0gBjIywXLAlAFzxZQA/oCE8tqyx8Syz/Jc/sAAAr0AMntVAj45Sg=',
      ),
      data: Cell.fromBase64(
        'te6cckEBAQEAKwAAUQAAAAApqaMX9sRQoWuxxRTiLxl345CjAlWZqh57AAaKaqzyEZSEwb1AeHSlCQ==',
      ),
    }),
  )
  .endCell()
  .toBoc()
  .toString('base64')
const address = '0:d22ce1556a6359cddcb82ee95c95c08110591145e67b5ac70108b030dcf839de'
const now = 1700000000

// research/ton.md §1.3/§1.4 [computed] vectors, reproduced with the walletkit layout (BE fields, TEP-81 domain).
const signData = {
  text: {
    request: { type: 'text', text: 'Hello, TON!' },
    signature: '7RtjBJ7vQ1a5ogehUy+zdRq0nHkmzPyGVJbI9KSfVDXs+AfHH48z3iFS5aRHJ4jY4jaY3hH5V5zxvKhnGjIMBg==',
  },
  binary: {
    request: { type: 'binary', bytes: '1Z/SGh+3HFMKlVHSkN91DpcCzT4C5jzHT3sA/24C5A==' },
    signature: 'TkmCHxGjcd9P0DC93d9wJOFxfu1HA/S916helRUxbhalhT03ZfLjZxOgrS9YiKd4uMOguFAEneHr3k5CIXx7Cg==',
  },
  cell: {
    request: {
      type: 'cell',
      schema:
        'transfer#0f8a7ea5 query_id:uint64 amount:(VarUInteger 16) destination:MsgAddress response_destination:MsgAddress custom_payload:(Maybe ^Cell) forward_ton_amount:(VarUInteger 16) forward_payload:(Either Cell ^Cell) = InternalMsgBody;',
      cell: 'te6ccgEBAQEAVwAAqg+KfqVUbeTvKqB4h0AcnDgIAZucsOi6TLrfP6FcuPKEeTI6oB3fF/NBjyqtdov/KtutACCLqvfmyV9kH+Pyo5lcsrJzJDzjBJK6fd+ZnbFQe4+XggI=',
    },
    signature: 'fktk+e7bT/x1V39X692pIu3Bg+EdkkHgzZBjWZ5FfOFj7J2YXJ8pg1iaISJk/SVbPTRE89ClO9b/ACn74obOBQ==',
  },
} as const

const options = { publicKey, stateInit: v5StateInit, domain: 'example.com', now: now + 10 }
const answer = (kind: keyof typeof signData) => ({
  signature: signData[kind].signature,
  address,
  timestamp: now,
  domain: 'example.com',
  payload: signData[kind].request,
})

describe('verifyTonSignData', () => {
  it('reproduces the published layout digests', () => {
    expect(crc32(new TextEncoder().encode('123456789')).toString(16)).toBe('cbf43926')
    const digest = tonSignDataDigest(signData.text.request, Address.parse(address), 'example.com', now)
    expect(Buffer.from(digest).toString('hex')).toBe(
      '70e03c09860d9384eb18f88f931202b8ee53c92c8bbcdc6df04cc0744320a5ae',
    )
    const cellHash = tonSignDataDigest(signData.cell.request, Address.parse(address), 'example.com', now)
    expect(Buffer.from(cellHash).toString('hex')).toBe(
      '548279e073e96e8de81877a533349ec48d01ae281f02dfc27406643069726382',
    )
  })
  it('accepts the text, binary and cell vectors, as array or bare params', () => {
    for (const kind of ['text', 'binary', 'cell'] as const) {
      expect(verifyTonSignData([signData[kind].request], answer(kind), options)).toEqual({ valid: true })
      expect(verifyTonSignData(signData[kind].request, answer(kind), options)).toEqual({ valid: true })
    }
  })
  it('refuses a wrong domain, a stale or future timestamp, a tampered signature, payload or key', () => {
    const good = answer('text')
    expect(verifyTonSignData(signData.text.request, good, { ...options, domain: 'evil.com' })).toEqual({
      valid: false,
      reason: 'domain example.com is not evil.com',
    })
    expect(
      verifyTonSignData(
        signData.text.request,
        { ...good, domain: 'evil.com' },
        { ...options, domain: 'evil.com' },
      ).valid,
    ).toBe(false)
    expect(verifyTonSignData(signData.text.request, good, { ...options, now: now + 901 }).valid).toBe(false)
    expect(verifyTonSignData(signData.text.request, good, { ...options, now: now - 61 }).valid).toBe(false)
    expect(verifyTonSignData(signData.text.request, { ...good, timestamp: now + 1 }, options).valid).toBe(
      false,
    )
    const bad = Buffer.from(good.signature, 'base64')
    bad[3] = bad[3]! ^ 1
    expect(
      verifyTonSignData(signData.text.request, { ...good, signature: bad.toString('base64') }, options).valid,
    ).toBe(false)
    const otherText = { type: 'text', text: 'Hello, TON?' }
    expect(verifyTonSignData(otherText, { ...good, payload: otherText }, options).valid).toBe(false)
    expect(verifyTonSignData(otherText, good, options).valid).toBe(false)
    expect(
      verifyTonSignData(signData.text.request, good, { ...options, publicKey: '11'.repeat(32) }).valid,
    ).toBe(false)
    const wrongFrom = { ...signData.text.request, from: '0:' + '11'.repeat(32) }
    expect(verifyTonSignData(wrongFrom, good, options).valid).toBe(false)
  })
  it('never throws on junk', () => {
    for (const junk of [null, 1, {}, { address: 'x' }])
      expect(verifyTonSignData(signData.text.request, junk, options).valid).toBe(false)
    expect(verifyTonSignData(null, answer('text'), null as never).valid).toBe(false)
  })
})

// research/ton.md §5.5 / appendix A [computed]: seqno 0, timeout 1700000060, one message with init; accepted by @ton/sandbox.
const golden = {
  v4: 'te6cckECFwEAA6wAA+OIADDP1bkLbQ5XBCkgV7mUu6vllLgE53hAKIRt6W7Vb3wSEZvsbX7jkbF/Uaqv4Uo7i3uGJip+GvsxP77T63m+2aftAhn/0A6Hj2YrnNYOdtTzUbGhU1w21UqlW7ief2GH4qGFNTRi7Kp+J4AAAAAAAHABFRYBFP8A9KQT9LzyyAsCAgEgAxACAUgEBwLm0AHQ0wMhcbCSXwTgItdJwSCSXwTgAtMfIYIQcGx1Z70ighBkc3RyvbCSXwXgA/pAMCD6RAHIygfL/8nQ7UTQgQFA1yH0BDBcgQEI9ApvoTGzkl8H4AXTP8glghBwbHVnupI4MOMNA4IQZHN0crqSXwbjDQUGAHgB+gD0BDD4J28iMFAKoSG+8uBQghBwbHVngx6xcIAYUATLBSbPFlj6Ahn0AMtpF8sfUmDLPyDJgED7AAYAilAEgQEI9Fkw7UTQgQFA1yDIAc8W9ADJ7VQBcrCOI4IQZHN0coMesXCAGFAFywVQA88WI/oCE8tqyx/LP8mAQPsAkl8D4gIBIAgPAgEgCQ4CAVgKCwA9sp37UTQgQFA1yH0BDACyMoHy//J0AGBAQj0Cm+hMYAIBIAwNABmtznaiaEAga5Drhf/AABmvHfaiaEAQa5DrhY/AABG4yX7UTQ1wsfgAWb0kK29qJoQICga5D6AhhHDUCAhHpJN9KZEM5pA+n/mDeBKAG3gQFImHFZ8xhAT48oMI1xgg0x/TH9MfAvgju/Jk7UTQ0x/TH9P/9ATRUUO68qFRUbryogX5AVQQZPkQ8qP4ACSkyMsfUkDLH1Iwy/9SEPQAye1U+A8B0wchwACfbFGTINdKltMH1AL7AOgw4CHAAeMAIcAC4wABwAORMOMNA6TIyx8Syx/L/xESExQAbtIH+gDU1CL5AAXIygcVy//J0Hd0gBjIywXLAiLPFlAF+gIUy2sSzMzJc/sAyEAUgQEI9FHypwIAcIEBCNcY+gDTP8hUIEeBAQj0UfKnghBub3RlcHSAGMjLBcsCUAbPFlAE+gIUy2oSyx/LP8lz+wACAGyBAQjXGPoA0z8wUiSBAQj0WfKnghBkc3RycHSAGMjLBcsCUAXPFlAD+gITy2rLHxLLP8lz+wAACvQAye1UAFEAAAAAKamjF/bEUKFrscUU4i8Zd+OQowJVmaoeewAGimqs8hGUhMG9QABoQgBzT4hmQkO9X6nPwfw8lI8uULSijdPedI0b0udp1cBAaaAvrwgAAAAAAAAAAAAAAAAAAOrEwnw=',
  v5: 'te6cckECGQEAA2YAA+eIAaRZwqrUxrObuXBd0rkrgQIgsiKLzPa1jgIRYGG58HO8EY5tLO3P///iLKp+J4AAAAAVNiaTSmlsmuVGnpehbpo9KErMM1s2cmb+O8bH87310N1KCLb0KFvANynYrFNQcYp3vyfjvpdXbLLpXdwdfmeYHAEVFgEU/wD0pBP0vPLICwICASADDgIBSAQFAtzQINdJwSCRW49jINcLHyCCEGV4dG69IYIQc2ludL2wkl8D4IIQZXh0brqOtIAg1yEB0HTXIfpAMPpE+Cj6RDBYvZFb4O1E0IEBQdch9AWDB/QOb6ExkTDhgEDXIXB/2zzgMSDXSYECgLmRMOBw4hEQAgEgBg0CASAHCgIBbggJABmtznaiaEAg65Drhf/AABmvHfaiaEAQ65DrhY/AAgFICwwAF7Ml+1E0HHXIdcLH4AARsmL7UTQ1woAgABm+Xw9qJoQICg65D6AsAQLyDwEeINcLH4IQc2lnbrry4Ip/EAHmjvDtou37IYMI1yICgwjXIyCAINch0x/TH9Mf7UTQ0gDTHyDTH9P/1woACvkBQMz5EJoolF8K2zHh8sCH3wKzUAew8tCEUSW68uCFUDa68uCG+CO78tCIIpL4AN4BpH/IygDLHwHPFsntVCCS+A/ecNs82BED9u2i7fsC9AQhbpJsIY5MAiHXOTBwlCHHALOOLQHXKCB2HkNsINdJwAjy4JMg10rAAvLgkyDXHQbHEsIAUjCw8tCJ10zXOTABpOhsEoQHu/Lgk9dKwADy4JPtVeLSAAHAAJFb4OvXLAgUIJFwlgHXLAgcEuJSELHjDyDXShITFACWAfpAAfpE+Cj6RDBYuvLgke1E0IEBQdcY9AUEnX/IygBABIMH9FPy4IuOFAODB/Rb8uCMItcKACFuAbOw8tCQ4shQA88WEvQAye1UAHIw1ywIJI4tIfLgktIA7UTQ0gBRE7ry0I9UUDCRMZwBgQFA1yHXCgDy4I7iyMoAWM8Wye1Uk/LAjeIAEJNb2zHh10zQAFGAAAAAP///iPtiKFC12OKKcReMu/HIUYEqzNUPPYADRTVWeQjKQmDeoAIKDsPIbQMXGAAAAGhCAHNPiGZCQ71fqc/B/DyUjy5QtKKN0950jRvS52nVwEBpoC+vCAAAAAAAAAAAAAAAAAAA45Sh1w==',
}
const sendRequest = {
  valid_until: 1700000060,
  messages: [{ address: 'UQDmnxDMhId6v1Ofg_h5KR5coWlFG6e86Ro3pc7Tq4CA07-i', amount: '100000000' }],
}

describe('verifyTonSendMessage', () => {
  const v4 = { publicKey, stateInit: v4StateInit, now }
  const v5 = { publicKey, stateInit: v5StateInit, now }
  it('accepts the golden v4R2 and v5R1 external messages', () => {
    expect(verifyTonSendMessage([sendRequest], golden.v4, v4)).toEqual({ valid: true })
    expect(verifyTonSendMessage(sendRequest, golden.v5, v5)).toEqual({ valid: true })
    expect(verifyTonSendMessage({ ...sendRequest, valid_until: 1700000060000 }, golden.v5, v5)).toEqual({
      valid: true,
    })
    expect(
      verifyTonSendMessage({ messages: sendRequest.messages, validUntil: 1700000060 }, golden.v5, v5),
    ).toEqual({ valid: true })
  })
  it('refuses another amount, destination, bounce flag, an earlier valid_until, expiry and another wallet', () => {
    const message = sendRequest.messages[0]!
    const variants = [
      { ...sendRequest, messages: [{ ...message, amount: '100000001' }] },
      {
        ...sendRequest,
        messages: [{ ...message, address: 'UQCsIUS3rvO4_pT_YrHcnF0HYNZKEV5OiVKTTZSHorUgU18m' }],
      },
      {
        ...sendRequest,
        messages: [{ ...message, address: 'EQDmnxDMhId6v1Ofg_h5KR5coWlFG6e86Ro3pc7Tq4CA0-Jn' }],
      },
      {
        ...sendRequest,
        messages: [
          {
            ...message,
            payload: beginCell().storeUint(0, 32).storeStringTail('hi').endCell().toBoc().toString('base64'),
          },
        ],
      },
      { ...sendRequest, messages: [message, message] },
      { ...sendRequest, valid_until: 1700000059 },
      // AppKit's camelCase spelling binds the signed expiry just the same.
      { messages: sendRequest.messages, validUntil: 1700000059 },
    ]
    for (const request of variants) expect(verifyTonSendMessage(request, golden.v5, v5).valid).toBe(false)
    expect(verifyTonSendMessage(sendRequest, golden.v5, { ...v5, now: 1700000060 }).valid).toBe(false)
    expect(verifyTonSendMessage(sendRequest, golden.v5, v4).valid).toBe(false)
    expect(verifyTonSendMessage(sendRequest, golden.v4, v5).valid).toBe(false)
    expect(verifyTonSendMessage(sendRequest, golden.v5, { ...v5, seqno: 3 }).valid).toBe(false)
  })
  it('refuses a tampered signature and junk', () => {
    const cell = Cell.fromBase64(golden.v5)
    const bytes = cell.toBoc()
    bytes[bytes.length - 20] = bytes[bytes.length - 20]! ^ 1
    expect(verifyTonSendMessage(sendRequest, bytes.toString('base64'), v5).valid).toBe(false)
    for (const junk of [null, 1, '', 'te6cc', {}])
      expect(verifyTonSendMessage(sendRequest, junk, v5).valid).toBe(false)
  })
})
