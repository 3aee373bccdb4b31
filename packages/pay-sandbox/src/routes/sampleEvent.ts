import { iso, newId } from '../ids.js'
import type { EventType, PaymentEvent } from '../model.js'

const statusOf: Record<EventType, string> = {
  'payment.created': 'requires_action',
  'payment.processing': 'processing',
  'payment.succeeded': 'succeeded',
  'payment.failed': 'failed',
  'payment.expired': 'expired',
  'payment.cancelled': 'cancelled',
  'payment.settled': 'succeeded',
}

/** A dashboard-style test event: sample data, `live: false`, a payment id that names no real payment. */
export function sampleEvent(type: EventType, apiVersion: string, now: number): PaymentEvent {
  return {
    id: newId('evt_'),
    type,
    api_version: apiVersion,
    created_at: iso(now),
    data: {
      payment_id: 'pay_sample000000000000000000',
      payment_state_version: 0,
      status: statusOf[type],
      live: false,
      merchant_id: 'mrch_sample00000000000000000',
      reference_id: 'sample-order-1',
      amount: { unit: 'iso4217/USD', value: '1000' },
      expires_at: iso(now + 15 * 60 * 1000),
      fee: null,
      processing: { fee: null },
      failure_reason: type === 'payment.failed' ? 'sample failure' : null,
      cancellation_reason: type === 'payment.cancelled' ? 'sample cancellation' : null,
      test_event: true,
    },
  }
}
