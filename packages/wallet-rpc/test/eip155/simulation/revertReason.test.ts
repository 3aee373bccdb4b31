import { encodeErrorResult, toHex } from 'viem'
import { describe, expect, it } from 'vitest'
import { revertReason } from '../../../src/eip155/simulation/revertReason.js'

const errorAbi = [{ type: 'error', name: 'Error', inputs: [{ name: 'message', type: 'string' }] }] as const
const panicAbi = [{ type: 'error', name: 'Panic', inputs: [{ name: 'code', type: 'uint256' }] }] as const
const errorString = (message: string) =>
  encodeErrorResult({ abi: errorAbi, errorName: 'Error', args: [message] })

describe('revertReason', () => {
  it('Error(string), Panic(uint256) and custom errors, as viem encodes them', () => {
    expect(revertReason(errorString('swap is closed'))).toBe('swap is closed')
    expect(revertReason(errorString(''))).toBe('Error("")')
    expect(revertReason(encodeErrorResult({ abi: panicAbi, errorName: 'Panic', args: [0x11n] }))).toBe(
      'Panic(0x11): arithmetic overflow or underflow',
    )
    expect(
      revertReason(encodeErrorResult({ abi: panicAbi, errorName: 'Panic', args: [2n ** 256n - 1n] })),
    ).toMatch(/^Panic\(0xf{64}\): unknown panic code$/)
    expect(revertReason('0xdeadbeef')).toBe('custom error 0xdeadbeef')
    expect(revertReason(`0xdeadbeef${'00'.repeat(64)}`)).toBe(
      'custom error 0xdeadbeef with 64 bytes of arguments',
    )
    expect(revertReason('0x')).toBe('reverted without a reason')
  })

  it('hostile data: control characters removed, long reasons cut, malformed encodings named', () => {
    expect(revertReason(errorString('ok\u202e\n\u0000 done'))).toBe('ok done')
    expect(revertReason(errorString('x'.repeat(10_000)))).toBe(`${'x'.repeat(200)}…`)
    expect(revertReason('0x08c379a0')).toBe('custom error 0x08c379a0')
    expect(
      revertReason(`0x08c379a0${toHex(32, { size: 32 }).slice(2)}${toHex(2n ** 64n, { size: 32 }).slice(2)}`),
    ).toMatch(/^custom error 0x08c379a0 with 64 bytes/)
    expect(revertReason('0x12')).toBe('malformed revert data 0x12')
    expect(revertReason('0xzz')).toBe('no revert data')
    expect(revertReason(undefined)).toBe('no revert data')
    expect(revertReason({})).toBe('no revert data')
  })
})
