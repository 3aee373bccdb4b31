import { describe, expect, it } from 'vitest'
import { NonceManager } from '../../src/eip155/nonces.js'

describe('NonceManager', () => {
  it('reads the chain once, then hands out distinct consecutive nonces to concurrent reservations', async () => {
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
    expect(reads).toBe(1)
  })

  it('keys are independent per chain and account', async () => {
    const manager = new NonceManager()
    const a = await manager.reserve('1:a', async () => 3)
    const b = await manager.reserve('1:b', async () => 9)
    const c = await manager.reserve('5:a', async () => 0)
    expect([a.nonce, b.nonce, c.nonce]).toEqual([3, 9, 0])
  })

  it('a failed broadcast of the last nonce gives it back', async () => {
    const manager = new NonceManager()
    const first = await manager.reserve('k', async () => 0)
    first.settle(true)
    const second = await manager.reserve('k', async () => 0)
    second.settle(false)
    expect((await manager.reserve('k', async () => 0)).nonce).toBe(1)
  })

  it('a failed broadcast in the middle re-reads the chain once nothing is in flight, filling the gap', async () => {
    const manager = new NonceManager()
    let reads = 0
    const readPending = async () => {
      reads += 1
      return 0 // nonce 0 never reached the chain, so its pending count stays 0
    }
    const first = await manager.reserve('k', readPending)
    const second = await manager.reserve('k', readPending)
    first.settle(false)
    second.settle(true)
    expect((await manager.reserve('k', readPending)).nonce).toBe(0)
    expect(reads).toBe(2)
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

  it('observe() moves past a nonce broadcast outside the manager', async () => {
    const manager = new NonceManager()
    ;(await manager.reserve('k', async () => 0)).settle(true)
    manager.observe('k', 5)
    expect((await manager.reserve('k', async () => 0)).nonce).toBe(6)
  })
})
