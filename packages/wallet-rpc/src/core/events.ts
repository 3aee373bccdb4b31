/** A wallet session event, as WalletConnect's `emitSessionEvent` takes it. */
export type WalletEvent = { name: string; chainId: string; data: unknown }
export type WalletEventListener = (event: WalletEvent) => void

/**
 * The smallest emitter that cannot be broken by its listeners: a throwing listener is reported to
 * `onError` and the others still run.
 */
export function createEventHub(onError: (error: unknown) => void) {
  const listeners = new Set<WalletEventListener>()
  return {
    on(listener: WalletEventListener): () => void {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    emit(event: WalletEvent): void {
      for (const listener of [...listeners]) {
        try {
          listener(event)
        } catch (error) {
          onError(error)
        }
      }
    },
    clear(): void {
      listeners.clear()
    },
  }
}
