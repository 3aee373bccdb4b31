// Filled in by the verify issue; the subpath resolves from day one.
export {}
