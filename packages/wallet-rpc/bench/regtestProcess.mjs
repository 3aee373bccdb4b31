// The embedded regtest chain in a child process, for bench/eventLoop: it checks every input's signature
// when a transaction arrives, which in the bench's own process would count as the wallet's blocking and CPU.
// Messages in: { fund: [{ address, sats }] } (then one block), 'stop'. Out: { url }, 'funded', 'stopped'.
import { startBitcoinRegtest } from '@wallet-rpc/devchains/bitcoinRegtest'

const started = await startBitcoinRegtest()
process.send({ url: started.url })
process.on('message', async (message) => {
  if (message === 'stop') {
    await started.stop()
    process.send('stopped', () => process.exit(0))
    return
  }
  for (const { address, sats } of message.fund) started.chain.fund(address, sats, { confirm: false })
  started.mine(1)
  process.send('funded')
})
