// Filled in by the pay issue; the subpath resolves from day one.
export {}
