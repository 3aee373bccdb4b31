// Filled in by the ton issue; the subpath resolves from day one.
export {}
