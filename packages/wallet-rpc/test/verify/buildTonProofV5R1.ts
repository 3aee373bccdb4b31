// Writes test-vectors/ton/ton-proof-v5r1.json: ton_proof items of a wallet v5R1, built independently of src/
// with @ton/ton 16.3's WalletContractV5R1 (its StateInit, inline and as the library cell Tonkeeper deploys),
// @ton/crypto's mnemonic-to-key, node:crypto SHA-256 and tweetnacl Ed25519, over the TON Connect layout
// (ton-connect/ton-connect requests-responses.md, "Address proof signature (ton_proof)").
// Run: npx tsx test/verify/buildTonProofV5R1.ts && npx biome format --write test-vectors/ton
import { createHash } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { beginCell, Cell, storeStateInit } from '@ton/core'
import { mnemonicToPrivateKey } from '@ton/crypto'
import { WalletContractV5R1 } from '@ton/ton'
import nacl from 'tweetnacl'

// The tonMnemonic of the conformance vectors (test-vectors/README.md).
const mnemonic =
  'hospital stove relief fringe tongue always charge angry urge sentence again match nerve inquiry senior coconut label tumble carry category beauty bean road solution'
const domain = 'app.example.com'
const payload = 'backend-issued-payload-7f3a'
const timestamp = 1_790_000_000

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest()

export async function buildTonProofV5R1Vectors() {
  const keys = await mnemonicToPrivateKey(mnemonic.split(' '))
  const wallet = WalletContractV5R1.create({ workchain: 0, publicKey: keys.publicKey })
  // A library cell (exotic type 2) naming the code's hash: the StateInit Tonkeeper's W5 deploys.
  const libraryCode = new Cell({
    exotic: true,
    bits: beginCell().storeUint(2, 8).storeBuffer(wallet.init.code.hash()).endCell().bits,
  })
  const cases = [
    { name: 'v5R1, code inline', code: wallet.init.code },
    { name: 'v5R1, code as a library cell', code: libraryCode },
  ].map(({ name, code }) => {
    const init = { code, data: wallet.init.data }
    const stateInit = beginCell().store(storeStateInit(init)).endCell()
    const hash = stateInit.hash()
    const workchain = Buffer.alloc(4)
    workchain.writeInt32BE(0)
    const domainLength = Buffer.alloc(4)
    domainLength.writeUInt32LE(Buffer.byteLength(domain))
    const stamp = Buffer.alloc(8)
    stamp.writeBigUInt64LE(BigInt(timestamp))
    const message = Buffer.concat([
      Buffer.from('ton-proof-item-v2/'),
      workchain,
      hash,
      domainLength,
      Buffer.from(domain),
      stamp,
      Buffer.from(payload),
    ])
    const digest = sha256(
      Buffer.concat([Buffer.from([0xff, 0xff]), Buffer.from('ton-connect'), sha256(message)]),
    )
    return {
      name,
      network: '-239',
      address: `0:${hash.toString('hex')}`,
      publicKey: keys.publicKey.toString('hex'),
      codeHash: code.hash().toString('hex'),
      proof: {
        timestamp,
        domain: { lengthBytes: Buffer.byteLength(domain), value: domain },
        signature: Buffer.from(nacl.sign.detached(digest, keys.secretKey)).toString('base64'),
        payload,
      },
      stateInit: stateInit.toBoc().toString('base64'),
    }
  })
  return {
    description: `TON Connect ton_proof items of a wallet v5R1 (code hash 20834b7b…), for the domain ${domain} and a fixed payload: the StateInit with the code inline and with the code as a library cell naming it (the cell's own hash then differs).`,
    source:
      'Built by test/verify/buildTonProofV5R1.ts with @ton/ton 16.3 WalletContractV5R1, @ton/crypto mnemonicToPrivateKey, node:crypto and tweetnacl (nothing from src/), over the layout of ton-connect/ton-connect requests-responses.md, "Address proof signature (ton_proof)".',
    license: 'MIT (this repository)',
    cases,
  }
}

if (process.argv[1]?.endsWith('buildTonProofV5R1.ts')) {
  const file = new URL('../../test-vectors/ton/ton-proof-v5r1.json', import.meta.url)
  writeFileSync(file, `${JSON.stringify(await buildTonProofV5R1Vectors(), null, 2)}\n`)
}
