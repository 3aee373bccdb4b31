/**
 * Every runtime helper the eip155 namespace takes from `viem/utils`, in one module. `viem/utils` is a barrel:
 * in Node (no tree-shaking) it loads about 200 more files than `viem/accounts` (actions, CCIP, ox, abitype),
 * which was most of this namespace's cold start. The build (`scripts/bundle-viem-utils.mjs`) replaces this
 * file's output, for Node, by one esbuild bundle of just these helpers; bundlers read the package's `browser`
 * field and get this plain re-export instead, so an app's own viem is shared, not duplicated.
 */
export {
  bytesToHex,
  decodeAbiParameters,
  decodeFunctionData,
  encodeAbiParameters,
  encodeFunctionData,
  formatEther,
  formatGwei,
  formatUnits,
  getAddress,
  hashAuthorization,
  hashMessage,
  hashTypedData,
  hexToBigInt,
  hexToBytes,
  isAddress,
  isAddressEqual,
  keccak256,
  numberToHex,
  parseTransaction,
  publicKeyToAddress,
  serializeTransaction,
} from 'viem/utils'
