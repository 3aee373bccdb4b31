/**
 * Large EIP-712 typed data for the yielding test and bench/eventLoop: a Batch of `entries` entries, each an
 * owner, `amounts` uint256 values and a note (`${salt} ${i}`), as its JSON string. Value count (what the
 * limits cap): 4 for the domain and message, plus 4 + `amounts` per entry.
 */
export function typedDataBatch(options: { entries: number; amounts: number; salt: string; owner: string }) {
  const { entries, amounts, salt, owner } = options
  return JSON.stringify({
    types: {
      EIP712Domain: [{ name: 'name', type: 'string' }],
      Entry: [
        { name: 'owner', type: 'address' },
        { name: 'amounts', type: 'uint256[]' },
        { name: 'note', type: 'string' },
      ],
      Batch: [{ name: 'entries', type: 'Entry[]' }],
    },
    primaryType: 'Batch',
    domain: { name: salt },
    message: {
      entries: Array.from({ length: entries }, (_, i) => ({
        owner,
        amounts: Array.from({ length: amounts }, (_, j) => String(i * amounts + j)),
        note: `${salt} ${i}`,
      })),
    },
  })
}
