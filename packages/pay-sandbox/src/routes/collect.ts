import * as v from 'valibot'
import { checkCollected, collectFields } from '../collectData.js'
import { ok, type Reply, type RequestContext, type Route } from '../context.js'
import { PayHttpError } from '../errors.js'
import type { Payment } from '../model.js'
import { validateBody } from '../validate.js'
import { html, issueList, type PageOptions, pageReply } from '../web/html.js'
import { isSameOrigin } from '../web/sameOrigin.js'

/** What the page posts to its parent / React Native bridge once the data is stored (hashed into the CSP). */
const completeScript = `const message = { type: 'IC_COMPLETE', success: true };
if (window.ReactNativeWebView) window.ReactNativeWebView.postMessage(JSON.stringify(message));
if (window.parent !== window) window.parent.postMessage(message, '*');`

/**
 * A page of the data collection flow. A wallet shows it in a web view or an iframe of its own, so any page may
 * frame it; `same-origin` referrers, because with `no-referrer` Chromium posts the form with `Origin: null`.
 */
const collectReply = (status: number, options: Omit<PageOptions, 'frameAncestors'>): Reply =>
  pageReply(status, { ...options, frameAncestors: '*' }, { 'referrer-policy': 'same-origin' })

const paymentOf = (context: RequestContext): Payment | undefined =>
  context.sandbox.state.payments.get(context.params.id!)

const notFound = (): Reply =>
  collectReply(404, {
    title: 'Payment not found',
    body: html`<main><h1>Payment not found</h1><p>There is no payment at this address.</p></main>`,
  })

/**
 * The collectData web-view page: a plain form; on submit the data is stored on the payment and the page posts
 * `{type:'IC_COMPLETE', success:true}` to its parent / React Native bridge, so the wallet confirms without
 * `collectedData`. JSON clients may POST `{fields:[{id,value}]}` directly.
 */
export const collectPage: Route = {
  method: 'GET',
  path: '/collect/:id',
  auth: 'none',
  handle: (context) => {
    const payment = paymentOf(context)
    if (payment === undefined) return notFound()
    const inputs = collectFields.map(
      (field) =>
        html`<p><label for="${field.id}">${field.name}</label><br><input id="${field.id}" name="${field.id}" type="${field.type}"${field.required ? html` required` : ''}></p>`,
    )
    return collectReply(200, {
      title: 'Sandbox data collection',
      body: html`<main><h1>Your details</h1>
<p class="muted">Payment <code>${payment.id}</code> needs these details before it can be paid.</p>
<form method="post" action="/collect/${encodeURIComponent(payment.id)}">${inputs}<button type="submit">Continue</button></form></main>`,
    })
  },
}

const formBody = v.record(v.string(), v.string())

function store(payment: Payment, fields: Array<{ id: string; value: string }>): void {
  if (!payment.collectData)
    throw new PayHttpError(409, 'collect_data_not_required', 'this payment collects no data')
  payment.collected = checkCollected(fields)
}

/** The form's refusal as a page: what was wrong, field by field, and the way back to the form. */
function formRefusal(payment: Payment, error: PayHttpError): Reply {
  return collectReply(error.status, {
    title: 'Could not continue',
    body: html`<main><h1>Could not continue</h1><p role="alert">${error.message}</p>${issueList(error.extra.issues)}
<p><a href="/collect/${encodeURIComponent(payment.id)}">Back to the form</a></p></main>`,
  })
}

export const collectSubmit: Route = {
  method: 'POST',
  path: '/collect/:id',
  auth: 'none',
  handle: (context) => {
    const body = context.body as { fields?: unknown } | undefined
    if (Array.isArray(body?.fields)) {
      const payment = context.sandbox.state.payment(context.params.id!)
      store(payment, validateBody(v.array(v.object({ id: v.string(), value: v.string() })), body.fields))
      return ok({ collected: true })
    }
    // A form post: only from this page (another site's form cannot fill in a buyer's details).
    const payment = paymentOf(context)
    if (payment === undefined) return notFound()
    if (!isSameOrigin(context)) {
      return collectReply(403, {
        title: 'Request refused',
        body: html`<main><h1>Request refused</h1><p>This form did not come from the data collection page. Nothing was stored.</p></main>`,
      })
    }
    try {
      const fields = Object.entries(validateBody(formBody, body ?? {}))
        .filter(([, value]) => value !== '')
        .map(([id, value]) => ({ id, value }))
      store(payment, fields)
    } catch (error) {
      if (error instanceof PayHttpError) return formRefusal(payment, error)
      throw error
    }
    return collectReply(200, {
      title: 'Done',
      body: html`<main><h1>Thank you</h1><p role="status">Your details were sent. You can return to your wallet.</p></main>`,
      scripts: [completeScript],
    })
  },
}
