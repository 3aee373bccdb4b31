// Filled in by the bip122 issue; the subpath resolves from day one.
export {}
