import { Address, Cell } from '@ton/core'
import { isValidAccountId } from '@walletconnect/utils'
import { describe, expect, it } from 'vitest'
import { request, tonWallet } from './fixtures.js'

describe('ton accounts for session approval', () => {
  it.each([
    ['ton:-239', 'v5r1', false],
    ['ton:-3', 'v5r1', true],
    ['ton:-239', 'v4r2', false],
  ] as const)(
    '%s %s: a valid CAIP-10 account naming the StateInit’s address',
    async (chainId, version, testOnly) => {
      const { rpc } = tonWallet({ wallet: version })
      const [account] = await rpc.accounts(chainId)
      // WalletConnect's own validator, which approveSession applies to every account.
      expect(isValidAccountId(`${chainId}:${account}`)).toBe(true)
      const parsed = Address.parseFriendly(account!)
      expect(parsed.isBounceable).toBe(false)
      expect(parsed.isTestOnly).toBe(testOnly)
      const stateInit = Cell.fromBase64((await rpc.sessionProperties()).ton_getStateInit!)
      expect(parsed.address.equals(new Address(0, stateInit.hash()))).toBe(true)
    },
  )

  it.each(['ton:-239', 'ton:-3'] as const)(
    '%s: a signData review names the session account',
    async (chainId) => {
      const { rpc, reviews } = tonWallet()
      const [account] = await rpc.accounts(chainId)
      await rpc.handle({
        chainId,
        origin: 'https://app.example.com',
        request: request('ton_signData', { type: 'text', text: 'x' }),
      })
      expect(reviews.map((review) => review.account)).toEqual([account])
    },
  )
})
