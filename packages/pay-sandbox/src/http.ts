/** What a route answers: the server writes it (JSON, HTML or raw bytes); the journal keeps it for idempotent replays. */
export type Reply = {
  status: number
  body: unknown
  headers?: Record<string, string | string[]>
  /** Sent as text/html instead of JSON. */
  html?: boolean
  /** Sent as this text of this type instead of `body` (explorer listings and logos). */
  raw?: { contentType: string; text: string }
}
