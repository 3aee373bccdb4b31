// The toolbar popup: pairs with the `wc:` URI a dapp shows, lists the sessions. Everything goes to the
// background service worker as chrome.runtime messages (which also wake it when Chrome has stopped it).
// A message the worker could not answer resolves with `{ error }` or rejects: both are shown, never thrown.
const send = (message) => chrome.runtime.sendMessage(message).catch((error) => ({ error: String(error) }))
const status = (text) => {
  document.getElementById('status').textContent = text
}

async function showSessions() {
  const sessions = await send({ type: 'sessions' })
  if (!Array.isArray(sessions)) return status(sessions?.error ?? 'The wallet did not list its sessions.')
  document.getElementById('sessions').replaceChildren(
    ...sessions.map(({ peer, namespaces }) => {
      const item = document.createElement('li')
      item.textContent = `${peer.name} (${peer.url}): ${Object.keys(namespaces).join(', ')}`
      return item
    }),
  )
}

document.getElementById('pair').addEventListener('submit', async (event) => {
  event.preventDefault()
  const answer = await send({ type: 'pair', uri: new FormData(event.target).get('uri') })
  status(answer?.error ?? 'Paired: approve the connection request.')
  await showSessions()
})
showSessions()
