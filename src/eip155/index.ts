// Filled in by the eip155 issue; the subpath resolves from day one.
export {}
