import { ok, type Route } from '../context.js'

export const listPayments: Route = {
  method: 'GET',
  path: '/v1/payments',
  auth: 'wallet',
  handle: () =>
    ok({ data: [], nextCursor: null, stats: { totalRevenue: [], totalTransactions: 0, totalCustomers: 0 } }),
}
