import { concatBytes } from '@noble/hashes/utils.js'
import { bech32, bech32m, hex } from '@scure/base'
import { networks } from 'bitcoinjs-lib'
import { InvalidParamsError } from '../core/errors.js'
import { base58check, p2pkhScript } from './encoding.js'
import type { Bip122Chain, NetworkName } from './types.js'

/**
 * The chains this namespace knows. A CAIP-2 bip122 reference is the first 32 hex characters of the genesis
 * block hash (ChainAgnostic namespaces `bip122/caip2.md`). Every test network uses coin type 1.
 */
export const BIP122_MAINNET = 'bip122:000000000019d6689c085ae165831e93'
export const BIP122_TESTNET = 'bip122:000000000933ea01ad0ee984209779ba'
export const BIP122_REGTEST = 'bip122:0f9188f13cb7b2c71f2a335e3a4fc328'

export const bip122Chains: Readonly<Record<string, Bip122Chain>> = {
  [BIP122_MAINNET]: { chainId: BIP122_MAINNET, name: 'mainnet', coinType: 0, network: networks.bitcoin },
  [BIP122_TESTNET]: { chainId: BIP122_TESTNET, name: 'testnet', coinType: 1, network: networks.testnet },
  [BIP122_REGTEST]: { chainId: BIP122_REGTEST, name: 'regtest', coinType: 1, network: networks.regtest },
}

export function chainById(chainId: string): Bip122Chain | undefined {
  return Object.hasOwn(bip122Chains, chainId) ? bip122Chains[chainId] : undefined
}

type DecodedAddress = { scriptPubKey: Uint8Array; networks: readonly NetworkName[] }

const bech32Networks: Readonly<Record<string, NetworkName>> = {
  bc: 'mainnet',
  tb: 'testnet',
  bcrt: 'regtest',
}

/**
 * Decodes any Bitcoin address (base58check P2PKH/P2SH, bech32 v0, bech32m v1+) and names the networks it is
 * valid on (testnet and regtest share base58 versions). Built on @scure/base rather than bitcoinjs-lib's
 * `address.toOutputScript`, which needs the process-global `initEccLib` for any P2TR address, answers for one
 * network per call, and measured about 8x slower here (~120 µs vs ~15 µs per address, tiny-secp256k1).
 */
export function decodeAddress(address: string): DecodedAddress | undefined {
  if (address.length > 100) return undefined
  const segwit = decodeSegwit(address)
  if (segwit) return segwit
  let payload: Uint8Array
  try {
    payload = base58check.decode(address)
  } catch {
    return undefined
  }
  if (payload.length !== 21) return undefined
  const hash = payload.subarray(1)
  const version = payload[0]
  if (version === 0x00 || version === 0x6f) {
    return {
      scriptPubKey: p2pkhScript(hash),
      networks: version === 0x00 ? ['mainnet'] : ['testnet', 'regtest'],
    }
  }
  if (version === 0x05 || version === 0xc4) {
    return {
      scriptPubKey: concatBytes(Uint8Array.of(0xa9, 0x14), hash, Uint8Array.of(0x87)),
      networks: version === 0x05 ? ['mainnet'] : ['testnet', 'regtest'],
    }
  }
  return undefined
}

function decodeSegwit(address: string): DecodedAddress | undefined {
  if (address !== address.toLowerCase() && address !== address.toUpperCase()) return undefined
  const lower = address.toLowerCase()
  const separator = lower.lastIndexOf('1')
  const network = bech32Networks[lower.slice(0, separator)]
  if (network === undefined) return undefined
  for (const [coder, isBech32m] of [
    [bech32, false],
    [bech32m, true],
  ] as const) {
    let words: number[]
    try {
      words = coder.decode(lower as `${string}1${string}`, 90).words
    } catch {
      continue
    }
    const version = words[0]
    if (version === undefined || version > 16 || (version === 0) === isBech32m) return undefined
    let program: Uint8Array
    try {
      program = coder.fromWords(words.slice(1))
    } catch {
      return undefined
    }
    if (program.length < 2 || program.length > 40) return undefined
    if (version === 0 && program.length !== 20 && program.length !== 32) return undefined
    return {
      scriptPubKey: concatBytes(Uint8Array.of(version === 0 ? 0 : 0x50 + version, program.length), program),
      networks: [network],
    }
  }
  return undefined
}

/**
 * The payee an address names, whatever its case (an upper-case bech32 address, as QR codes carry it, pays the same
 * script): how a third party's description of a payment is compared with what a request moves
 * (`Namespace.addressKey`). Text that is not an address stays as it is, so it matches nothing but itself.
 */
export function addressKey(text: string): string {
  const decoded = decodeAddress(text)
  return decoded === undefined ? text : `script:${hex.encode(decoded.scriptPubKey)}`
}

/**
 * The scriptPubKey `address` pays to on `chain`. An address of another network, or no address at all, is
 * refused with -32602 naming the field (`path`).
 */
export function outputScriptOf(address: string, chain: Bip122Chain, path: string): Uint8Array {
  const decoded = decodeAddress(address)
  if (!decoded) throw new InvalidParamsError('not a valid Bitcoin address', { path })
  if (!decoded.networks.includes(chain.name)) {
    throw new InvalidParamsError(
      `${address} is a ${decoded.networks.join('/')} address; this request is for ${chain.name}`,
      { path },
    )
  }
  return decoded.scriptPubKey
}
