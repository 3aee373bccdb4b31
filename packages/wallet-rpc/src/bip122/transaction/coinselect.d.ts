// coinselect 3.x ships no types. Only the entry point we call is declared.
declare module 'coinselect' {
  type Sized = { script?: { length: number }; value: number }
  function coinSelect<U extends Sized, T extends Sized>(
    utxos: U[],
    targets: T[],
    feeRate: number,
  ): { inputs?: U[]; outputs?: Array<T | { value: number; script?: { length: number } }>; fee: number }
  export default coinSelect
}
