// What every upstream transport offers: send one query, get the reply that answers it. The caller's
// `accept` decodes and checks a candidate reply; one that does not answer the query (a spoof, a late reply
// to an older query) is ignored on UDP and ends the connection on streams.

export type Accept<T> = (reply: Buffer) => T;

export interface Transport {
  /** Sends `query` (its id is set by the transport) and resolves with accept(reply). */
  exchange<T>(query: Buffer, accept: Accept<T>, timeoutMs: number): Promise<T>;
  close(): void;
}

export class UpstreamError extends Error {
  constructor(
    /** "timeout", "network", "tls", "http", "mismatch", "closed" */
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = "UpstreamError";
  }
}
