/** Raised when a command needs a package that is not installed beside the library; names what to do. */
export class MissingPackageError extends Error {
  override name = 'MissingPackageError'
  constructor(
    readonly packageName: string,
    message: string,
  ) {
    super(message)
  }
}

/**
 * Loads one of the applications built on the library (`@wallet-rpc/pay-sandbox`, `@wallet-rpc/devchains`),
 * which the library never depends on. The specifier is a variable so neither TypeScript nor a bundler follows
 * it; `T` is the part of the module the caller uses. When the package itself is absent the error says
 * `howToGet`; a missing module inside a present package is rethrown unchanged.
 */
export async function importOptional<T>(specifier: string, howToGet: string): Promise<T> {
  const packageName = specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/')
  try {
    return (await import(specifier)) as T
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code
    const message = error instanceof Error ? error.message : ''
    if (code === 'ERR_MODULE_NOT_FOUND' && message.includes(`'${packageName}'`)) {
      throw new MissingPackageError(packageName, `${packageName} is not installed: ${howToGet}`)
    }
    throw error
  }
}
