// bip122 `getAccountAddresses`: well-formed entries, the account address present, keys and paths that
// really stand behind each address, and the `intentions` filter respected.
import { hex } from '@scure/base'
import { type AddressType, type BitcoinNetwork, decodeAddress, scriptMatchesKey } from '../checks/bitcoin.js'
import { fail, guarded, isRecord, type VerifyResult } from './result.js'

export type GetAccountAddressesParams = { account: string; intentions?: string[] }
export type AccountAddress = { address: string; publicKey?: string; path?: string; intention?: string }
export type VerifyGetAccountAddressesOptions = {
  network?: BitcoinNetwork
  /** Addresses the dapp knows have history (e.g. from an explorer): the listing must keep fewer than 20
   *  addresses outside this set (the spec's gap-limit rule). */
  usedAddresses?: readonly string[]
  /** Addresses the dapp knows hold UTXOs: each must be listed (when no `intentions` filter applies). */
  fundedAddresses?: readonly string[]
}

const purposeOf: Record<AddressType, number | undefined> = {
  p2pkh: 44,
  p2sh: 49,
  p2wpkh: 84,
  p2tr: 86,
  p2wsh: undefined,
}

/** Checks a wallet's `getAccountAddresses` answer (or the `bip122_getAccountAddresses` session property). */
export function verifyGetAccountAddresses(
  params: GetAccountAddressesParams,
  result: unknown,
  options: VerifyGetAccountAddressesOptions = {},
): VerifyResult {
  return guarded(() => {
    if (!isRecord(params) || typeof params.account !== 'string') fail('request has no account')
    const entries = typeof result === 'string' ? JSON.parse(result) : result
    if (!Array.isArray(entries) || entries.length === 0) fail('result is not a non-empty array')
    const seen = new Set<string>()
    const wantsPayment = params.intentions === undefined || params.intentions.includes('payment')
    if (wantsPayment && !entries.some((entry) => isRecord(entry) && entry.address === params.account)) {
      fail('the account address is missing')
    }
    if (options.usedAddresses !== undefined) {
      const used = new Set(options.usedAddresses)
      const unused = entries.filter((entry) => isRecord(entry) && !used.has(String(entry.address))).length
      if (unused >= 20) fail(`${unused} unused addresses listed; the spec allows fewer than 20`)
    }
    if (options.fundedAddresses !== undefined && params.intentions === undefined) {
      const listed = new Set(entries.map((entry) => (isRecord(entry) ? entry.address : undefined)))
      const missing = options.fundedAddresses.find((address) => !listed.has(address))
      if (missing !== undefined) fail(`${missing} holds coins but is not listed`)
    }
    entries.forEach((entry: unknown, index) => {
      if (!isRecord(entry) || typeof entry.address !== 'string') fail(`entry ${index} has no address`)
      if (seen.has(entry.address)) fail(`${entry.address} is listed twice`)
      seen.add(entry.address)
      const address = decodeAddress(entry.address)
      if (options.network !== undefined && !address.networks.includes(options.network)) {
        fail(`${entry.address} is not a ${options.network} address`)
      }
      if (entry.publicKey !== undefined) {
        if (
          typeof entry.publicKey !== 'string' ||
          !/^([0-9a-f]{64}|0[23][0-9a-f]{64})$/.test(entry.publicKey)
        ) {
          fail(`${entry.address}: publicKey is not a compressed or x-only key in lowercase hex`)
        }
        const key = hex.decode(entry.publicKey)
        const outputKeyGiven =
          address.type === 'p2tr' && key.length === 32 && hex.encode(address.program) === entry.publicKey
        if (!outputKeyGiven && !scriptMatchesKey(address, key))
          fail(`${entry.address}: publicKey does not derive it`)
      }
      if (entry.path !== undefined) {
        const match =
          typeof entry.path === 'string'
            ? /^m\/(\d+)'\/(\d+)'\/(\d+)'\/([01])\/(\d+)$/.exec(entry.path)
            : null
        if (match === null)
          fail(`${entry.address}: path ${String(entry.path)} is not m/purpose'/coin'/account'/change/index`)
        if (Number(match[1]) !== purposeOf[address.type])
          fail(`${entry.address}: path purpose does not fit ${address.type}`)
        const coin = Number(match[2])
        if ((coin === 0) !== address.networks.includes('mainnet') || coin > 1) {
          fail(`${entry.address}: coin type ${coin} does not fit the network`)
        }
      }
      if (entry.intention !== undefined && entry.intention !== 'payment' && entry.intention !== 'ordinal') {
        fail(`${entry.address}: unknown intention`)
      }
      // An entry without `intention` still has one: its address type and path purpose say it (a wallet
      // that ignores the filter and lists its payment addresses must not pass for leaving the field out).
      const intention = entry.intention ?? intentionOf(address.type, entry.path)
      if (params.intentions !== undefined && !params.intentions.includes(intention)) {
        const inferred = entry.intention === undefined ? ' (inferred from its type and path)' : ''
        fail(`${entry.address}: intention ${intention}${inferred} was filtered out by the request`)
      }
    })
  })
}

/** Ordinals live on taproot (BIP-86, purpose 86'); payments on P2PKH, P2SH-P2WPKH and P2WPKH (44', 49', 84'). */
function intentionOf(type: AddressType, path: unknown): 'payment' | 'ordinal' {
  const purpose = typeof path === 'string' ? /^m\/(\d+)'/.exec(path)?.[1] : undefined
  if (purpose !== undefined) return purpose === '86' ? 'ordinal' : 'payment'
  return type === 'p2tr' ? 'ordinal' : 'payment'
}
