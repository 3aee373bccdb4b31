// wallet-rpc/ton needs a global Buffer (README, Platforms); this module is imported before wallet-rpc.
import { Buffer } from 'buffer'

globalThis.Buffer ??= Buffer
