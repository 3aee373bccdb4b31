import nacl from 'tweetnacl'

/** Bundles' copy (the package's `browser` field): the portable Ed25519 backend, imported statically. */
export function tweetnaclLibrary(): typeof nacl {
  return nacl
}
