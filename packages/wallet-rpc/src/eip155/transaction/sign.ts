import type { Hex, TransactionSerializable } from 'viem'
import type { Eip155Signer } from '../keys.js'
import type { TransactionDraft } from './request.js'

/** viem's serializable form of a draft with its nonce decided. */
function toSerializable(draft: TransactionDraft, nonce: number): TransactionSerializable {
  const common = {
    chainId: draft.chainId,
    nonce,
    gas: draft.gas,
    value: draft.value,
    data: draft.data,
    ...(draft.to === undefined ? {} : { to: draft.to }),
  }
  const { fees } = draft
  if (fees.type === 'eip1559') {
    return {
      ...common,
      type: 'eip1559',
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      ...(draft.accessList === undefined ? {} : { accessList: draft.accessList }),
    }
  }
  if (fees.type === 'eip2930') {
    return { ...common, type: 'eip2930', gasPrice: fees.gasPrice, accessList: draft.accessList ?? [] }
  }
  return { ...common, type: 'legacy', gasPrice: fees.gasPrice }
}

export async function signDraft(signer: Eip155Signer, draft: TransactionDraft, nonce: number): Promise<Hex> {
  return signer.signTransaction(toSerializable(draft, nonce))
}
