/**
 * The checkout page's only script (inline, its hash in the CSP). It reads everything from the page's `data-`
 * attributes, so its text never changes and no payment data can reach it as code. It counts down to expiry
 * (removing the QR code and wallet link at zero: nothing can be submitted after it), and follows the status
 * with a long poll (`GET /<pay_id>/status?version=N` returns when the payment changes or after ~25 s):
 * on a change it swaps in the freshly rendered view, on a terminal state with redirect URLs it leaves for them.
 * Errors back off exponentially up to 30 s. Without JavaScript a `<noscript>` refresh reloads the page instead.
 */
export const checkoutScript = `(() => {
  'use strict'
  const root = document.getElementById('checkout')
  const status = document.getElementById('status')
  if (root === null || status === null) return
  let deadline = performance.now() + Number(root.dataset.remainingMs)
  const two = (value) => String(value).padStart(2, '0')
  const tick = () => {
    const countdown = document.getElementById('countdown')
    if (countdown === null || root.dataset.paymentStatus !== 'requires_action') return
    const left = Math.max(0, Math.ceil((deadline - performance.now()) / 1000))
    const minutes = two(Math.floor(left / 60) % 60) + ':' + two(left % 60)
    countdown.textContent = left >= 3600 ? Math.floor(left / 3600) + ':' + minutes : minutes
    if (left > 0) return
    for (const element of document.querySelectorAll('[data-until-expiry]')) element.remove()
    status.textContent = 'Time is up: this payment can no longer be paid'
  }
  tick()
  setInterval(tick, 1000)

  const swapView = async () => {
    const response = await fetch(location.href, { cache: 'no-store', redirect: 'manual' })
    const next = response.ok
      ? new DOMParser().parseFromString(await response.text(), 'text/html').getElementById('checkout')
      : null
    if (next === null) {
      location.reload()
      return false
    }
    root.replaceChildren(...Array.from(next.childNodes, (node) => document.importNode(node, true)))
    for (const name of ['paymentStatus', 'final', 'version', 'remainingMs']) root.dataset[name] = next.dataset[name]
    deadline = performance.now() + Number(root.dataset.remainingMs)
    const heading = root.querySelector('h2[tabindex]')
    if (heading !== null) heading.focus()
    return true
  }

  const follow = async () => {
    let failures = 0
    while (root.dataset.final !== 'true') {
      try {
        const url = root.dataset.statusUrl + '?version=' + encodeURIComponent(root.dataset.version)
        const response = await fetch(url, { cache: 'no-store', headers: { accept: 'application/json' } })
        if (!response.ok) throw new Error('status ' + response.status)
        const body = await response.json()
        failures = 0
        status.textContent = body.label
        // Once final the result heading says it; the line stays for screen readers (the live region).
        status.className = 'status status-' + body.status + (body.final ? ' sr-only' : '')
        if (typeof body.redirectUrl === 'string') {
          location.replace(body.redirectUrl)
          return
        }
        if (String(body.version) !== root.dataset.version && !(await swapView())) return
      } catch {
        failures++
        await new Promise((resolve) => setTimeout(resolve, Math.min(30000, 500 * 2 ** failures)))
      }
    }
  }
  follow()
})()`

export const checkoutStyles = `
.merchant{display:flex;align-items:center;gap:.75rem}
.merchant h1{margin:0;font-size:1.4rem}.merchant p{margin:0}.eyebrow{font-size:.85rem;text-transform:uppercase}
.amount{font-size:2.2rem;font-weight:700;margin:.5rem 0}
.status{font-weight:600}.status-succeeded{color:#15803d}.status-failed,.status-expired,.status-cancelled{color:#b91c1c}
.qr{margin:1rem 0;max-width:264px}.qr svg{display:block;width:100%;height:auto}
.qr figcaption{font-size:.85rem;opacity:.75}
.wallet-link{display:inline-block;padding:.6rem 1rem;border-radius:.5rem;background:#1d4ed8;color:#fff;text-decoration:none}
input[readonly]{width:100%;box-sizing:border-box;font-family:ui-monospace,monospace;font-size:.8rem}
code{word-break:break-all}
.sr-only{position:absolute;width:1px;height:1px;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`
