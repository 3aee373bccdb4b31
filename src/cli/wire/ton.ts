import type { Namespace } from '../../core/namespace.js'
import type { WalletCliOptions } from '../options.js'

/** The ton namespace the CLI builds from its options, or undefined when its keys are not given. */
export async function wireTon(_options: WalletCliOptions): Promise<Namespace | undefined> {
  return undefined
}
