import { describe, expect, it } from 'vitest'
import { NonceManager } from '../../src/eip155/nonces.js'

describe('NonceManager', () => {
  it('hands out distinct consecutive nonces to concurrent reservations, re-reading the chain for each', async () => {
    const manager = new NonceManager()
    let reads = 0
    const readPending = async () => {
      reads += 1
      return 7
    }
    const reservations = await Promise.all(
      Array.from({ length: 50 }, () => manager.reserve('1:a', readPending)),
    )
    expect(reservations.map((reservation) => reservation.nonce)).toEqual(
      Array.from({ length: 50 }, (_, i) => 7 + i),
    )
    expect(reads).toBe(50)
  })

  it('keys are independent per chain and account', async () => {
    const manager = new NonceManager()
    const a = await manager.reserve('1:a', async () => 3)
    const b = await manager.reserve('1:b', async () => 9)
    const c = await manager.reserve('5:a', async () => 0)
    expect([a.nonce, b.nonce, c.nonce]).toEqual([3, 9, 0])
  })

  it('a sign-only nonce is not held: the next send takes the same one', async () => {
    const manager = new NonceManager()
    const signOnly = await manager.reserve('k', async () => 4, { broadcast: false })
    const send = await manager.reserve('k', async () => 4)
    expect([signOnly.nonce, send.nonce]).toEqual([4, 4])
  })

  it('a failed broadcast gives its nonce back, even in the middle (the gap is filled next)', async () => {
    const manager = new NonceManager()
    const first = await manager.reserve('k', async () => 0)
    const second = await manager.reserve('k', async () => 0)
    first.settle(false)
    second.settle(true)
    // Nonce 0 never reached the chain, so its pending count stays 0; nonce 1 is ours and broadcast.
    expect((await manager.reserve('k', async () => 0)).nonce).toBe(0)
  })

  it('our own broadcasts count while a lagging node does not show them yet; the chain wins once it moves', async () => {
    const manager = new NonceManager()
    ;(await manager.reserve('k', async () => 0)).settle(true)
    ;(await manager.reserve('k', async () => 0)).settle(true)
    expect((await manager.reserve('k', async () => 0)).nonce).toBe(2)
    // Another device sent three more: the chain's count is the truth.
    expect((await manager.reserve('k', async () => 6)).nonce).toBe(6)
  })

  it('a failed chain read fails that reservation only', async () => {
    const manager = new NonceManager()
    await expect(
      manager.reserve('k', async () => {
        throw new Error('down')
      }),
    ).rejects.toThrow('down')
    expect((await manager.reserve('k', async () => 4)).nonce).toBe(4)
  })

  it('observe() skips a nonce broadcast outside the manager', async () => {
    const manager = new NonceManager()
    manager.observe('k', 0)
    expect((await manager.reserve('k', async () => 0)).nonce).toBe(1)
  })
})
