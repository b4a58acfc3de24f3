// The FIB writer over the native addon: each chunk is encoded into one Buffer of rtnetlink messages
// (netlink-encode.ts) and written by the addon off the main thread in as few sendmsg calls as the socket
// allows; the kernel answers only the messages it refuses (native/netlink-route.c). One write is in flight
// at a time (chunks apply in order); the next chunk is encoded meanwhile and waits in the queue.
import type { Logger } from "pino";
import type { FibTarget, NextHopKey } from "./lines.js";
import type { NetlinkRouteAddon } from "./native.js";
import { RouteMessages } from "./netlink-encode.js";
import type { ChunkResult, FibChunk, FibWriter } from "./writer.js";

/** Socket buffers asked for (beyond net.core.*mem_max with CAP_NET_ADMIN): a 2,000-route chunk in one sendmsg. */
const RCVBUF = 8 << 20;
const SNDBUF = 4 << 20;

interface Queued {
  buf: Buffer;
  count: number;
  /** Writes that could not be encoded (sent as no-ops): index → error. */
  refused: Map<number, string>;
  resolve(r: ChunkResult): void;
  reject(err: Error): void;
}

export class NetlinkWriter implements FibWriter {
  readonly kind = "netlink";
  readonly draining = false;
  readonly flushesInBulk = false;
  private readonly handle: object;
  private readonly queue: Queued[] = [];
  private busy = false;
  private closed = false;
  /** sendmsg calls so far (a chunk normally takes one). */
  sends = 0;

  constructor(
    private readonly addon: NetlinkRouteAddon,
    logger: Logger,
  ) {
    const s = addon.open(RCVBUF, SNDBUF);
    this.handle = s.handle;
    logger.debug({ rcvbuf: s.rcvbuf, sndbuf: s.sndbuf, maxMessages: s.maxMessages }, "netlink route socket");
  }

  chunk(target: FibTarget): FibChunk {
    const messages = new RouteMessages();
    const refused = new Map<number, string>();
    // A write the encoder refuses (ip would refuse the line too) becomes a no-op, so message i stays write i.
    const add = (encode: () => void) => {
      try {
        encode();
      } catch (err) {
        refused.set(messages.count, `Error: ${(err as Error).message}.`);
        messages.noop();
      }
    };
    return {
      replace: (prefix: string, hops: NextHopKey) => add(() => messages.replace(prefix, hops, target)),
      delete: (prefix: string, metric: number) => add(() => messages.delete(prefix, target, metric)),
      get count() {
        return messages.count;
      },
      submit: () => this.submit(messages.bytes(), messages.count, refused),
    };
  }

  private submit(buf: Buffer, count: number, refused: Map<number, string>): Promise<ChunkResult> {
    if (count === 0) return Promise.resolve({ failed: new Map() });
    if (this.closed) return Promise.reject(new Error("the netlink writer is closed"));
    return new Promise((resolve, reject) => {
      this.queue.push({ buf, count, refused, resolve, reject });
      this.next();
    });
  }

  private next(): void {
    if (this.busy || this.closed) return;
    const q = this.queue.shift();
    if (q === undefined) return;
    this.busy = true;
    try {
      this.addon.write(this.handle, q.buf, q.count, (err, r) => {
        this.busy = false;
        if (err !== null || r === undefined) q.reject(err ?? new Error("netlink write: no result"));
        else {
          this.sends += r.sends;
          const failed = new Map(q.refused);
          for (const [i, text] of r.failed) if (!failed.has(i)) failed.set(i, text);
          q.resolve({ failed });
        }
        this.next();
      });
    } catch (err) {
      this.busy = false;
      q.reject(err as Error);
      this.next();
    }
  }

  close(): void {
    this.closed = true;
    for (const q of this.queue.splice(0)) q.reject(new Error("the netlink writer is closed"));
    this.addon.close(this.handle);
  }
}
