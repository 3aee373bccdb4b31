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

describe('NonceManager ranges (EIP-5792 batches)', () => {
  it('a range is consecutive and no concurrent reservation lands inside it', async () => {
    const manager = new NonceManager()
    const read = async () => 3
    const [single, range, after] = await Promise.all([
      manager.reserve('k', read),
      manager.reserveRange('k', read, 3),
      manager.reserve('k', read),
    ])
    expect([single.nonce, range.first, after.nonce]).toEqual([3, 4, 7])
    // A range only fits where all its nonces are free: the hole at 3 is too small for two.
    single.settle(false)
    const two = await manager.reserveRange('k', read, 2)
    expect(two.first).toBe(8)
    expect((await manager.reserve('k', read)).nonce).toBe(3)
  })

  it('settle(used) keeps the broadcast ones and gives the rest back', async () => {
    const manager = new NonceManager()
    const range = await manager.reserveRange('k', async () => 0, 3)
    range.settle(1)
    expect((await manager.reserve('k', async () => 0)).nonce).toBe(1)
  })

  it("an upgrade's authorization nonce is held while its transaction is pending, freed when another took the transaction's nonce", async () => {
    const manager = new NonceManager()
    let mined = 5
    const readMined = async () => mined
    const upgrade = await manager.reserveRange('k', async () => 5, 2, { authorization: true, readMined })
    upgrade.settle(2)
    // The node counts the pending type-4 transaction (6) but not its authorization's nonce.
    expect((await manager.reserve('k', async () => 6, { readMined })).nonce).toBe(7)
    // Mined as sent: the count passes both.
    const other = new NonceManager()
    const sent = await other.reserveRange('k', async () => 5, 2, { authorization: true, readMined })
    sent.settle(2)
    expect((await other.reserve('k', async () => 7, { readMined: async () => 7 })).nonce).toBe(7)
    // Replaced: nonce 5 mined by another transaction, 6 never used: 6 is free again.
    mined = 6
    const replaced = new NonceManager()
    const lost = await replaced.reserveRange('k', async () => 5, 2, { authorization: true, readMined })
    lost.settle(2)
    expect((await replaced.reserve('k', async () => 6, { readMined })).nonce).toBe(6)
  })
})
