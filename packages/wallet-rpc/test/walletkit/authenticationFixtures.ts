import type { SessionTypes } from '@walletconnect/types'

/**
 * A connect-time sign-in request as a dapp's sign-client sends it (`proposal.requests.authentication[i]`, CAIP-122
 * `AuthenticateParams`), with a session and a verified proposer it fits: the base the proposal-request tests
 * change one field of.
 */
export const now = Date.parse('2026-11-26T12:00:00Z')
export const signInAccount = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94'
export const good = {
  domain: 'app.example.com',
  chains: ['eip155:1'],
  nonce: 'abcdefgh1',
  aud: 'https://app.example.com/login',
  version: '1',
  type: 'caip122',
  iat: '2026-11-26T11:59:00Z',
  statement: 'Sign in.',
}
export const namespaces: SessionTypes.Namespaces = {
  eip155: { accounts: [`eip155:1:${signInAccount}`], methods: ['personal_sign'], events: [] },
}
export const supported = [{ name: 'eip155', chains: ['eip155:1'], methods: ['personal_sign'], events: [] }]
export const proposer = { origin: 'https://app.example.com', validation: 'VALID' as const }
