import { base58 } from '@scure/base'
import { address, lamports } from '@solana/kit'
import { associatedTokenAccount } from '@wallet-rpc/pay-sandbox'
import type { SolanaLocalChain } from './solanaLocal.js'

const tokenProgramId = address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA')

function u64(value: bigint): Uint8Array {
  const out = new Uint8Array(8)
  new DataView(out.buffer).setBigUint64(0, value, true)
  return out
}

/**
 * A USDC-style SPL mint on the local runtime, written straight into its accounts (the SPL Token layouts: mint
 * 82 bytes, token account 165 bytes): `fund` gives an owner's associated token account a balance, `balance`
 * reads one back. For tests and the demo; a real mint is made by transactions.
 */
export function createSplMint(chain: SolanaLocalChain, options: { address: string; decimals?: number }) {
  const mint = base58.decode(options.address)
  const rent = (space: number) => lamports(chain.svm.minimumBalanceForRentExemption(BigInt(space)))
  const mintData = new Uint8Array(82)
  mintData.set(u64(1n << 62n), 36)
  mintData[44] = options.decimals ?? 6
  mintData[45] = 1
  chain.svm.setAccount({
    address: address(options.address),
    data: mintData,
    executable: false,
    lamports: rent(82),
    programAddress: tokenProgramId,
    space: 82n,
  })
  const tokenAccountOf = (owner: string) =>
    address(base58.encode(associatedTokenAccount(base58.decode(owner), mint)))
  return {
    mint: options.address,
    tokenAccountOf,
    fund(owner: string, amount: bigint): void {
      const data = new Uint8Array(165)
      data.set(mint, 0)
      data.set(base58.decode(owner), 32)
      data.set(u64(amount), 64)
      data[108] = 1
      chain.svm.setAccount({
        address: tokenAccountOf(owner),
        data,
        executable: false,
        lamports: rent(165),
        programAddress: tokenProgramId,
        space: 165n,
      })
    },
    balance(owner: string): bigint {
      const account = chain.svm.getAccount(tokenAccountOf(owner))
      if (!account.exists) return 0n
      return new DataView(account.data.buffer, account.data.byteOffset).getBigUint64(64, true)
    },
  }
}
