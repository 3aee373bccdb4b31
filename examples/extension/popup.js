// The toolbar popup: pairs with the `wc:` URI a dapp shows, lists the sessions. Everything goes to the
// background service worker as chrome.runtime messages (which also wake it when Chrome has stopped it).
const send = (message) => chrome.runtime.sendMessage(message)

async function showSessions() {
  const sessions = await send({ type: 'sessions' })
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
  document.getElementById('status').textContent = answer.error ?? 'Paired: approve the connection request.'
  await showSessions()
})
showSessions()
