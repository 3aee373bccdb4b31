import { friendly } from './address.js'
import { isTestnet } from './chains.js'
import {
  beginCell,
  Cell,
  contractAddress,
  external,
  loadMessage,
  type StateInit,
  storeMessage,
  storeMessageRelaxed,
  storeOutList,
  storeStateInit,
} from './tonCore.js'
import type { TonWalletOptions, TonWalletVersion, WalletContract } from './types.js'

export type { TonWalletOptions, TonWalletVersion, TransferRequest, WalletContract } from './types.js'

/*
 * The two wallet contracts this namespace speaks: v4R2 (the long-time default) and v5R1 ("W5", Tonkeeper's
 * and TON Connect WalletKit's current default). Layouts are written here from the contracts' TL-B rather than
 * taken from @ton/ton (which would pull axios, zod and dataloader into every wallet);
 * test/ton/wallet.test.ts proves every cell byte-identical to @ton/ton 16.3 and the sandbox runs them.
 */

// Contract code from @ton/ton 16.3.0 (WalletContractV4 / WalletContractV5R1); hashes checked below.
const v4r2CodeBoc =
  'te6cckECFAEAAtQAART/APSkE/S88sgLAQIBIAIPAgFIAwYC5tAB0NMDIXGwkl8E4CLXScEgkl8E4ALTHyGCEHBsdWe9IoIQZHN0cr2wkl8F4AP6QDAg+kQByMoHy//J0O1E0IEBQNch9AQwXIEBCPQKb6Exs5JfB+AF0z/IJYIQcGx1Z7qSODDjDQOCEGRzdHK6kl8G4w0EBQB4AfoA9AQw+CdvIjBQCqEhvvLgUIIQcGx1Z4MesXCAGFAEywUmzxZY+gIZ9ADLaRfLH1Jgyz8gyYBA+wAGAIpQBIEBCPRZMO1E0IEBQNcgyAHPFvQAye1UAXKwjiOCEGRzdHKDHrFwgBhQBcsFUAPPFiP6AhPLassfyz/JgED7AJJfA+ICASAHDgIBIAgNAgFYCQoAPbKd+1E0IEBQNch9AQwAsjKB8v/ydABgQEI9ApvoTGACASALDAAZrc52omhAIGuQ64X/wAAZrx32omhAEGuQ64WPwAARuMl+1E0NcLH4AFm9JCtvaiaECAoGuQ+gIYRw1AgIR6STfSmRDOaQPp/5g3gSgBt4EBSJhxWfMYQE+PKDCNcYINMf0x/THwL4I7vyZO1E0NMf0x/T//QE0VFDuvKhUVG68qIF+QFUEGT5EPKj+AAkpMjLH1JAyx9SMMv/UhD0AMntVPgPAdMHIcAAn2xRkyDXSpbTB9QC+wDoMOAhwAHjACHAAuMAAcADkTDjDQOkyMsfEssfy/8QERITAG7SB/oA1NQi+QAFyMoHFcv/ydB3dIAYyMsFywIizxZQBfoCFMtrEszMyXP7AMhAFIEBCPRR8qcCAHCBAQjXGPoA0z/IVCBHgQEI9FHyp4IQbm90ZXB0gBjIywXLAlAGzxZQBPoCFMtqEssfyz/Jc/sAAgBsgQEI1xj6ANM/MFIkgQEI9Fnyp4IQZHN0cnB0gBjIywXLAlAFzxZQA/oCE8tqyx8Syz/Jc/sAAAr0AMntVAj45Sg='
const v5r1CodeBoc =
  'te6cckECFAEAAoEAART/APSkE/S88sgLAQIBIAINAgFIAwQC3NAg10nBIJFbj2Mg1wsfIIIQZXh0br0hghBzaW50vbCSXwPgghBleHRuuo60gCDXIQHQdNch+kAw+kT4KPpEMFi9kVvg7UTQgQFB1yH0BYMH9A5voTGRMOGAQNchcH/bPOAxINdJgQKAuZEw4HDiEA8CASAFDAIBIAYJAgFuBwgAGa3OdqJoQCDrkOuF/8AAGa8d9qJoQBDrkOuFj8ACAUgKCwAXsyX7UTQcdch1wsfgABGyYvtRNDXCgCAAGb5fD2omhAgKDrkPoCwBAvIOAR4g1wsfghBzaWduuvLgin8PAeaO8O2i7fshgwjXIgKDCNcjIIAg1yHTH9Mf0x/tRNDSANMfINMf0//XCgAK+QFAzPkQmiiUXwrbMeHywIffArNQB7Dy0IRRJbry4IVQNrry4Ib4I7vy0IgikvgA3gGkf8jKAMsfAc8Wye1UIJL4D95w2zzYEAP27aLt+wL0BCFukmwhjkwCIdc5MHCUIccAs44tAdcoIHYeQ2wg10nACPLgkyDXSsAC8uCTINcdBscSwgBSMLDy0InXTNc5MAGk6GwShAe78uCT10rAAPLgk+1V4tIAAcAAkVvg69csCBQgkXCWAdcsCBwS4lIQseMPINdKERITAJYB+kAB+kT4KPpEMFi68uCR7UTQgQFB1xj0BQSdf8jKAEAEgwf0U/Lgi44UA4MH9Fvy4Iwi1woAIW4Bs7Dy0JDiyFADzxYS9ADJ7VQAcjDXLAgkji0h8uCS0gDtRNDSAFETuvLQj1RQMJExnAGBAUDXIdcKAPLgjuLIygBYzxbJ7VST8sCN4gAQk1vbMeHXTNC01sNe'

/** Code hashes of the two contracts, for recognising wallet StateInits. */
export const walletCodeHashes = {
  v4r2: 'feb5ff6820e2ff0d9483e7e0d62c817d846789fb4ae580c878866d959dabd5c0',
  v5r1: '20834b7b72b112147e1b2fb457b84e74d1a30f04f737d4f62a668e9552d2b72f',
} as const

function loadCode(version: TonWalletVersion, boc: string): Cell {
  const code = Cell.fromBase64(boc)
  if (code.hash().toString('hex') !== walletCodeHashes[version])
    throw new Error(`${version} code hash mismatch`)
  return code
}

let codes: Record<TonWalletVersion, Cell> | undefined
const codeOf = (version: TonWalletVersion): Cell => {
  codes ??= { v4r2: loadCode('v4r2', v4r2CodeBoc), v5r1: loadCode('v5r1', v5r1CodeBoc) }
  return codes[version]
}

/** Messages one external message may carry: the v4R2 body has 4 references, v5R1's out-list caps at 255. */
export const maxMessages: Record<TonWalletVersion, number> = { v4r2: 4, v5r1: 255 }

// v5R1 external request opcode: "sign".
const v5r1SignedExternalOp = 0x7369676e

/** v5R1 wallet_id = network_global_id XOR context, context = 1 | workchain:int8 | version:uint8 (0) | subwallet:uint15. */
export function v5r1WalletId(networkGlobalId: number, workchain: number, subwalletNumber: number): number {
  const context = (1 << 31) | ((workchain & 0xff) << 23) | (0 << 15) | (subwalletNumber & 0x7fff)
  return (networkGlobalId ^ context) >>> 0
}

function u32(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff)
    throw new RangeError(`${what} must be a uint32`)
  return value
}

export function walletContract(
  publicKey: Uint8Array,
  options: TonWalletOptions = { version: 'v5r1' },
  workchain = 0,
): WalletContract {
  if (publicKey.length !== 32) throw new TypeError('Ed25519 public key must be 32 bytes')
  if (workchain !== 0 && workchain !== -1) throw new RangeError('workchain must be 0 or -1')
  const key = Buffer.from(publicKey)
  const version = options.version
  let walletId: number
  let data: Cell
  if (version === 'v4r2') {
    walletId = u32(options.walletId ?? 698983191 + workchain, 'walletId')
    // seqno:uint32 wallet_id:uint32 public_key:bits256 plugins:(HashmapE 256 ^Cell)
    data = beginCell().storeUint(0, 32).storeUint(walletId, 32).storeBuffer(key).storeBit(0).endCell()
  } else if (version === 'v5r1') {
    const subwallet = options.subwalletNumber ?? 0
    if (!Number.isInteger(subwallet) || subwallet < 0 || subwallet > 0x7fff) {
      throw new RangeError('subwalletNumber must be 0..32767')
    }
    walletId = u32(
      options.walletId ?? v5r1WalletId(options.networkGlobalId ?? -239, workchain, subwallet),
      'walletId',
    )
    // is_signature_allowed:bool seqno:uint32 wallet_id:int32 public_key:bits256 extensions_dict:(HashmapE 256 int1)
    data = beginCell()
      .storeBit(1)
      .storeUint(0, 32)
      .storeUint(walletId, 32)
      .storeBuffer(key)
      .storeBit(0)
      .endCell()
  } else {
    throw new TypeError(`unknown wallet version ${String(version)}`)
  }
  const init: StateInit = { code: codeOf(version), data }
  const stateInitCell = beginCell().store(storeStateInit(init)).endCell()
  const address = contractAddress(workchain, init)
  const accounts = {
    mainnet: friendly(address, 'ton:-239', false),
    testnet: friendly(address, 'ton:-3', false),
  }

  return {
    version,
    workchain,
    walletId,
    publicKey: Uint8Array.from(publicKey),
    init,
    stateInitBoc: stateInitCell.toBoc().toString('base64'),
    address,
    rawAddress: address.toRawString(),
    publicKeyHex: key.toString('hex'),
    account: (chainId) => (isTestnet(chainId) ? accounts.testnet : accounts.mainnet),
    maxMessages: maxMessages[version],

    unsignedTransfer({ seqno, validUntil, sendMode, messages }) {
      if (messages.length < 1 || messages.length > maxMessages[version]) {
        throw new RangeError(`${version} sends 1 to ${maxMessages[version]} messages`)
      }
      const header = beginCell()
      if (version === 'v4r2') {
        // wallet_id:uint32 valid_until:uint32 seqno:uint32 op:uint8 (0 = send) (mode:uint8 ^MessageRelaxed)*
        header
          .storeUint(walletId, 32)
          .storeUint(u32(validUntil, 'validUntil'), 32)
          .storeUint(u32(seqno, 'seqno'), 32)
        header.storeUint(0, 8)
        for (const message of messages) {
          header.storeUint(sendMode, 8).storeRef(beginCell().store(storeMessageRelaxed(message)))
        }
        return header.endCell()
      }
      // "sign":uint32 wallet_id:int32 valid_until:uint32 seqno:uint32 out_actions:(Maybe ^OutList) has_other_actions:bool
      // External requests must carry +2 (IGNORE_ERRORS) on every action, or the contract throws.
      if ((sendMode & 2) === 0) throw new RangeError('v5r1 external messages need send mode +2')
      const outList = beginCell().store(
        storeOutList(messages.map((outMsg) => ({ type: 'sendMsg' as const, mode: sendMode, outMsg }))),
      )
      return header
        .storeUint(v5r1SignedExternalOp, 32)
        .storeUint(walletId, 32)
        .storeUint(u32(validUntil, 'validUntil'), 32)
        .storeUint(u32(seqno, 'seqno'), 32)
        .storeMaybeRef(outList.endCell())
        .storeBit(0)
        .endCell()
    },

    signedTransfer(unsigned, signature) {
      if (signature.length !== 64) throw new TypeError('Ed25519 signature must be 64 bytes')
      const sig = Buffer.from(signature)
      return version === 'v4r2'
        ? beginCell().storeBuffer(sig).storeSlice(unsigned.beginParse()).endCell()
        : beginCell().storeSlice(unsigned.beginParse()).storeBuffer(sig).endCell()
    },

    externalMessage(body, includeInit) {
      const message = external({ to: address, init: includeInit ? init : null, body })
      return beginCell().store(storeMessage(message)).endCell()
    },
  }
}

/**
 * TEP-467 normalized hash of an external-in message: src, import_fee and init dropped, body forced into a
 * reference. Indexers and dapps look transactions up by it, whatever else the sender attached.
 */
export function normalizedMessageHash(externalMessage: Cell): Uint8Array {
  const message = loadMessage(externalMessage.beginParse())
  if (message.info.type !== 'external-in') throw new TypeError('not an external-in message')
  const normalized = beginCell()
    .store(
      storeMessage(
        {
          info: { type: 'external-in', src: null, dest: message.info.dest, importFee: 0n },
          init: null,
          body: message.body,
        },
        { forceRef: true },
      ),
    )
    .endCell()
  return new Uint8Array(normalized.hash())
}
