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

/** A query on its way: settled by the first reply `accept` takes, or by a failure. */
export interface Pending {
  accept: (reply: Buffer) => boolean;
  fail: (err: UpstreamError) => void;
}

/**
 * Registers query `id` in `pending` and returns the promise of its reply: the first candidate `accept`
 * takes, a failure, or a timeout after `timeoutMs`. Whatever settles it first removes it from `pending`;
 * anything later is ignored.
 */
export function awaitReply<T>(
  pending: Map<number, Pending>,
  id: number,
  accept: Accept<T>,
  timeoutMs: number,
  timeoutMessage: string,
): { reply: Promise<T>; fail: (err: UpstreamError) => void } {
  let entry!: Pending;
  const reply = new Promise<T>((resolve, reject) => {
    const settle = (): boolean => {
      if (pending.get(id) !== entry) return false;
      clearTimeout(timer);
      pending.delete(id);
      return true;
    };
    const timer = setTimeout(() => settle() && reject(new UpstreamError("timeout", timeoutMessage)), timeoutMs);
    entry = {
      accept: (msg) => {
        let value: T;
        try {
          value = accept(msg);
        } catch {
          return false;
        }
        if (settle()) resolve(value);
        return true;
      },
      fail: (err) => {
        if (settle()) reject(err);
      },
    };
    pending.set(id, entry);
  });
  return { reply, fail: entry.fail };
}
