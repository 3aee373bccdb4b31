import type { Namespace } from '../../core/namespace.js'
import type { WalletCliOptions } from '../options.js'

/** The bip122 namespace the CLI builds from its options, or undefined when its keys are not given. */
export async function wireBip122(_options: WalletCliOptions): Promise<Namespace | undefined> {
  return undefined
}
