import type { ReviewItem } from '../../../src/core/review.js'

/** The value of the first review line labelled `label`, searched through the groups depth first. */
export function itemValue(items: readonly ReviewItem[], label: string): string | undefined {
  for (const entry of items) {
    if (entry.label === label && 'value' in entry) return entry.value
    if ('items' in entry) {
      const found = itemValue(entry.items, label)
      if (found !== undefined) return found
    }
  }
  return undefined
}
