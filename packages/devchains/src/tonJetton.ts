// A TEP-74 jetton on the TON sandbox: the standard minter and wallet (the code minter.ton.org deploys), so
// tests and the demo move real jettons between real jetton wallets.
import { sha256 } from '@noble/hashes/sha2.js'
import { type Address, beginCell, Cell, contractAddress, Dictionary, toNano } from '@ton/core'
import type { Blockchain, SandboxContract, TreasuryContract } from '@ton/sandbox'

// Compiled code, verbatim: ton-blockchain/minter-contract build/jetton-wallet-hex.json and
// build/jetton-minter-hex.json at commit 4457fe19df2148ce0e1c843ae056d572946f6bb4 (MIT, Copyright (c) 2022
// DeFi.org), built from contracts/jetton-wallet.fc and jetton-minter.fc there. Code hashes e4a219ea… (wallet)
// and 13f5d7a3… (minter).
const walletCodeHex = [
  'b5ee9c72c1021201000328000000000d001200220027002c00700075007a00ea016b01a801b101eb026902b802bd02c80114',
  'ff00f4a413f4bcf2c80b010201620302001ba0f605da89a1f401f481f481a8610202cc0f0402012006050083d40106b90f6a',
  '2687d007d207d206a1802698fc1080bc6a28ca9105d41083deecbef09dd0958f97162e99f98fd001809d02811e428027d012',
  'c678b00e78b6664f6aa40201200d07020120090800db3b51343e803e903e90350c01f4cffe803e900c145468549271c17cb8',
  'b049f0bffcb8b0a0822625a02a8005a805af3cb8b0e0841ef765f7b232c7c572cfd400fe8088b3c58073c5b25c60063232c1',
  '4933c59c3e80b2dab33260103ec01004f214013e809633c58073c5b3327b552003f73b51343e803e903e90350c0234cffe80',
  '145468017e903e9014d6f1c1551cdb5c150804d50500f214013e809633c58073c5b33248b232c044bd003d0032c0327e401c',
  '1d3232c0b281f2fff274140371c1472c7cb8b0c2be80146a2860822625a020822625a004ad822860822625a028062849f8c3',
  'c975c2c070c008e00c0b0a0076c200b08e218210d53276db708010c8cb055008cf165004fa0216cb6a12cb1f12cb3fc972fb',
  '0093356c21e203c85004fa0258cf1601cf16ccc9ed54000e10491038375f0400705279a018a182107362d09cc8cb1f5230cb',
  '3f58fa025007cf165007cf16c9718018c8cb0524cf165006fa0215cb6a14ccc971fb001024102301f5503d33ffa00fa4021f',
  '001ed44d0fa00fa40fa40d4305136a1522ac705f2e2c128c2fff2e2c254344270542013541403c85004fa0258cf1601cf16c',
  'cc922c8cb0112f400f400cb00c920f9007074c8cb02ca07cbffc9d004fa40f40431fa00778018c8cb055008cf1670fa0217c',
  'b6b13cc8210178d4519c8cb1f1980e009acb3f5007fa0222cf165006cf1625fa025003cf16c95005cc2391729171e25008a8',
  '13a08208989680aa008208989680a0a014bcf2e2c504c98040fb001023c85004fa0258cf1601cf16ccc9ed540201d4111000',
  '113e910c1c2ebcb8536000bb0831c02497c138007434c0c05c6c2544d7c0fc03383e903e900c7e800c5c75c87e800c7e800c',
  '00b4c7e08403e29fa954882ea54c4d167c0278208405e3514654882ea58c511100fc02b80d60841657c1ef2ea4d67c02f817',
  'c12103fcbc20c2d0bee8',
].join('')
const minterCodeHex = [
  'b5ee9c72c1020b010001ed000000000d00120018002a006b007000bc01390152016c0114ff00f4a413f4bcf2c80b01020162',
  '050202037a600403001faf16f6a2687d007d206a6a183faa9040007dadbcf6a2687d007d206a6a183618fc1400b82a1009aa',
  '0a01e428027d012c678b00e78b666491646580897a007a00658064fc80383a6465816503e5ffe4e8400202cc07060093b3f0',
  '508806e0a84026a8280790a009f404b19e2c039e2d99924591960225e801e80196019241f200e0e9919605940f97ff93a0ef',
  '003191960ab19e2ca009f4042796d625999992e3f60103efd9910e38048adf068698180b8d848adf07d201800e98fe99ff6a',
  '2687d007d206a6a18400aa9385d47181a9aa8aae382f9702480fd207d006a18106840306b90fd001812881a28217804d02a9',
  '06428027d012c678b666664f6aa7041083deecbef29385d71811a92e001f1811802600271812f82c207f97840a0908002e51',
  '43c705f2e049d43001c85004fa0258cf16ccccc9ed5400303515c705f2e049fa403059c85004fa0258cf16ccccc9ed5400fe',
  '3603fa00fa40f82854120870542013541403c85004fa0258cf1601cf16ccc922c8cb0112f400f400cb00c9f9007074c8cb02',
  'ca07cbffc9d05008c705f2e04a12a1035024c85004fa0258cf16ccccc9ed5401fa403020d70b01c3008e1f8210d53276db70',
  '8010c8cb055003cf1622fa0212cb6acb1fcb3fc98042fb00915be2cc665c46',
].join('')

/** TEP-74 / minter-contract opcodes. */
export const jettonOps = {
  mint: 21,
  transfer: 0x0f8a7ea5,
  internalTransfer: 0x178d4519,
} as const

export type JettonMetadata = { name: string; symbol: string; decimals: number }

export type SandboxJetton = {
  master: Address
  metadata: JettonMetadata
  /** Mints `amount` base units to `owner`'s jetton wallet (deployed by the mint). */
  mint(owner: Address, amount: bigint): Promise<void>
  /** `owner`'s jetton wallet, as the master computes it (`get_wallet_address`). */
  walletOf(owner: Address): Promise<Address>
  /** Base units `owner` holds; 0 before its jetton wallet exists. */
  balanceOf(owner: Address): Promise<bigint>
}

/** TEP-64 on-chain content: `0x00` then a dictionary from sha256(key) to snake-encoded text (`0x00` prefix). */
export function onchainContent(fields: Record<string, string>): Cell {
  const dict = Dictionary.empty(Dictionary.Keys.Buffer(32), Dictionary.Values.Cell())
  for (const [key, value] of Object.entries(fields)) {
    dict.set(
      Buffer.from(sha256(new TextEncoder().encode(key))),
      beginCell().storeUint(0, 8).storeStringTail(value).endCell(),
    )
  }
  return beginCell().storeUint(0, 8).storeDict(dict).endCell()
}

/** The text of `key` in TEP-64 on-chain content, or undefined (off-chain content, or no such key). */
export function onchainField(content: Cell, key: string): string | undefined {
  try {
    const slice = content.beginParse()
    if (slice.loadUint(8) !== 0) return undefined
    const dict = slice.loadDict(Dictionary.Keys.Buffer(32), Dictionary.Values.Cell())
    const value = dict.get(Buffer.from(sha256(new TextEncoder().encode(key))))?.beginParse()
    return value !== undefined && value.loadUint(8) === 0 ? value.loadStringTail() : undefined
  } catch {
    return undefined
  }
}

/** Deploys a jetton master whose admin is `admin` (the sandbox's treasury mints). */
export async function deployJetton(
  blockchain: Blockchain,
  admin: SandboxContract<TreasuryContract>,
  metadata: JettonMetadata,
): Promise<SandboxJetton> {
  const walletCode = Cell.fromBoc(Buffer.from(walletCodeHex, 'hex'))[0]!
  const minterCode = Cell.fromBoc(Buffer.from(minterCodeHex, 'hex'))[0]!
  // storage#_ total_supply:Coins admin_address:MsgAddress content:^Cell jetton_wallet_code:^Cell
  const data = beginCell()
    .storeCoins(0)
    .storeAddress(admin.address)
    .storeRef(
      onchainContent({ name: metadata.name, symbol: metadata.symbol, decimals: String(metadata.decimals) }),
    )
    .storeRef(walletCode)
    .endCell()
  const init = { code: minterCode, data }
  const master = contractAddress(0, init)
  await admin.send({ to: master, value: toNano('0.1'), init, bounce: false })

  async function walletOf(owner: Address): Promise<Address> {
    const result = await blockchain.runGetMethod(master, 'get_wallet_address', [
      { type: 'slice', cell: beginCell().storeAddress(owner).endCell() },
    ])
    return result.stackReader.readAddress()
  }

  return {
    master,
    metadata,
    walletOf,
    async mint(owner, amount) {
      // mint#15 query_id:uint64 to_address:MsgAddress amount:Coins master_msg:^InternalTransfer
      const internalTransfer = beginCell()
        .storeUint(jettonOps.internalTransfer, 32)
        .storeUint(0, 64)
        .storeCoins(amount)
        .storeAddress(null)
        .storeAddress(null)
        .storeCoins(0)
        .storeBit(0)
        .endCell()
      const body = beginCell()
        .storeUint(jettonOps.mint, 32)
        .storeUint(0, 64)
        .storeAddress(owner)
        .storeCoins(toNano('0.05'))
        .storeRef(internalTransfer)
        .endCell()
      await admin.send({ to: master, value: toNano('0.1'), body })
    },
    async balanceOf(owner) {
      const wallet = await walletOf(owner)
      const contract = await blockchain.getContract(wallet)
      if (contract.accountState?.type !== 'active') return 0n
      return (await blockchain.runGetMethod(wallet, 'get_wallet_data')).stackReader.readBigNumber()
    },
  }
}

/** The TEP-74 transfer body `ton_sendMessage` sends to the owner's jetton wallet. */
export function jettonTransferBody(options: {
  amount: bigint
  destination: Address
  responseDestination: Address
  forwardTonAmount?: bigint
  queryId?: bigint
}): Cell {
  return beginCell()
    .storeUint(jettonOps.transfer, 32)
    .storeUint(options.queryId ?? 0n, 64)
    .storeCoins(options.amount)
    .storeAddress(options.destination)
    .storeAddress(options.responseDestination)
    .storeBit(0)
    .storeCoins(options.forwardTonAmount ?? 1n)
    .storeBit(0)
    .endCell()
}
