/**
 * A provider URL as the CLI may print it: `user:password@` → `***@`, every query value → `***`, and path
 * runs of 20+ letters and digits (with a digit: API keys, which Infura, Alchemy and QuickNode put in the path) →
 * `***`. Works on text
 * that is not a valid URL too, since that is when the CLI prints it.
 */
export function maskUrl(text: string): string {
  return text
    .replace(/(\/\/)[^/?#@\s]*@/g, '$1***@')
    .replace(/([?&][^=&#\s]*=)[^&#\s]*/g, '$1***')
    .replace(/[A-Za-z0-9_-]{20,}/g, (token) => (/\d/.test(token) ? '***' : token))
}
