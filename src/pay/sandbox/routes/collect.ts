import * as v from 'valibot'
import { checkCollected, collectFields } from '../collectData.js'
import { ok, type Route } from '../context.js'
import { PayHttpError } from '../errors.js'
import { validateBody } from '../validate.js'
import { escapeHtml } from '../web/html.js'

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
    const payment = context.sandbox.state.payment(context.params.id!)
    const inputs = collectFields
      .map(
        (field) =>
          `<label>${escapeHtml(field.name)} <input name="${field.id}" type="${field.type}"${field.required ? ' required' : ''}></label><br>`,
      )
      .join('\n')
    const html = `<!doctype html><meta charset="utf-8"><title>Sandbox data collection</title>
<form method="post" action="/collect/${escapeHtml(payment.id)}">${inputs}<button>Continue</button></form>`
    return { status: 200, body: html, html: true }
  },
}

const formBody = v.record(v.string(), v.string())

export const collectSubmit: Route = {
  method: 'POST',
  path: '/collect/:id',
  auth: 'none',
  handle: (context) => {
    const payment = context.sandbox.state.payment(context.params.id!)
    if (!payment.collectData)
      throw new PayHttpError(409, 'collect_data_not_required', 'this payment collects no data')
    const body = context.body as { fields?: unknown } | undefined
    const fields = Array.isArray(body?.fields)
      ? validateBody(v.array(v.object({ id: v.string(), value: v.string() })), body.fields)
      : Object.entries(validateBody(formBody, body ?? {}))
          .filter(([, value]) => value !== '')
          .map(([id, value]) => ({ id, value }))
    payment.collected = checkCollected(fields)
    if (Array.isArray(body?.fields)) return ok({ collected: true })
    const done = `<!doctype html><meta charset="utf-8"><title>Done</title><p>Thank you.</p><script>
const message = { type: 'IC_COMPLETE', success: true };
if (window.ReactNativeWebView) window.ReactNativeWebView.postMessage(JSON.stringify(message));
if (window.parent !== window) window.parent.postMessage(message, '*');
</script>`
    return { status: 200, body: done, html: true }
  },
}
