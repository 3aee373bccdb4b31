// Filled in by the walletkit issue; the subpath resolves from day one.
export {}
