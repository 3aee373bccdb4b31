// The independent verifier of wallet-rpc/verify (its own parser, sighash and curve code), as a second
// implementation over the final bytes: what the wallet's own code built is checked by code it did not write.
import { checkKeySpend, classifyScript, parseTransaction, type TxOutput } from '../../checks/bitcoin.js'
import { VerifyFailure } from '../../checks/failure.js'
import { InvalidParamsError } from '../../core/errors.js'
import type { Prevout } from '../transaction/sighash.js'

const refuse = (reason: string) =>
  new InvalidParamsError(`${reason}; nothing was broadcast`, { path: 'psbt' })

/**
 * Before a `broadcast: true` PSBT leaves the wallet: every input of the final transaction, ours and foreign
 * alike, must spend its previous output with exactly the single-key template (P2TR key path, P2WPKH,
 * P2SH-P2WPKH, P2PKH) and a signature that verifies. An input whose previous output is unknown, or whose
 * script this check cannot verify (multisig, script paths), is refused rather than sent on trust: the wallet
 * never hands a node what it would reject. Such a PSBT can still be signed without `broadcast`.
 */
export function assertSpendable(raw: Uint8Array, prevouts: readonly (Prevout | undefined)[]): void {
  const tx = parseTransaction(raw)
  const outputs: TxOutput[] = tx.inputs.map((_input, index) => {
    const prevout = prevouts[index]
    if (prevout === undefined)
      throw refuse(`input ${index}: its previous output is unknown, so it cannot be checked`)
    return { amount: prevout.value, script: prevout.script }
  })
  for (let index = 0; index < tx.inputs.length; index++) {
    const kind = classifyScript(outputs[index]!.script)
    if (kind === undefined) throw refuse(`input ${index} spends a script type the wallet cannot verify`)
    try {
      checkKeySpend(tx, index, outputs, kind)
    } catch (error) {
      if (error instanceof VerifyFailure) throw refuse(error.message)
      throw error
    }
  }
}
