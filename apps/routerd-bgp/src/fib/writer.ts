// How a chunk of FIB writes reaches the kernel. Two writers behind one interface: `netlink` (the native
// addon: a chunk's rtnetlink messages in a few sendmsg calls) and `ip` (one long-lived `ip -force -batch
// -`, one request and acknowledgement per route). The programmer (programmer.ts) is the same for both:
// chunks apply in order, and a write the kernel refuses is reported by its index in the chunk.
import type { Logger } from "pino";
import { IpBatch, IpWriter } from "./ip-batch.js";
import type { FibTarget, NextHopKey } from "./lines.js";
import { loadNetlinkRoute } from "./native.js";
import { NetlinkWriter } from "./netlink-writer.js";

export interface ChunkResult {
  /** Index in the chunk → the error (ip's own wording for both writers, e.g. "Error: Nexthop has invalid gateway."). */
  failed: Map<number, string>;
}

/** One chunk being filled: write i is the i-th replace/delete call. */
export interface FibChunk {
  replace(prefix: string, hops: NextHopKey): void;
  delete(prefix: string, metric: number): void;
  readonly count: number;
  /** Applies the chunk after every chunk submitted before it; resolves when the kernel has processed it. */
  submit(): Promise<ChunkResult>;
}

export interface FibWriter {
  readonly kind: FibWriterKind;
  /** True while nothing more should be submitted until what is in flight has applied (ip-batch.ts). */
  readonly draining: boolean;
  /**
   * Every route of ours to go at once (the only session lost): one `ip route flush` is quicker than a delete
   * per route for `ip` (an acknowledgement per route), not for netlink (a chunk of deletes per sendmsg).
   */
  readonly flushesInBulk: boolean;
  chunk(target: FibTarget): FibChunk;
  close(): void;
}

export type FibWriterKind = "netlink" | "ip";

/** A writer, or why it cannot be used here. */
export type WriterOpening = { writer: FibWriter } | { reason: string };

/** Writers in order of preference; `ROUTERD_BGP_FIB_WRITER` picks one (the other stays the fallback). */
export type WriterTable = Record<FibWriterKind, (logger: Logger) => WriterOpening>;

export const WRITER_ENV = "ROUTERD_BGP_FIB_WRITER";

/** netlink first; ip -batch when the addon is not there (not built, not Linux) or cannot open its socket. */
export const DEFAULT_WRITERS: WriterTable = {
  netlink: (logger) => {
    const loaded = loadNetlinkRoute();
    if ("reason" in loaded) return loaded;
    try {
      return { writer: new NetlinkWriter(loaded.addon, logger) };
    } catch (err) {
      return { reason: (err as Error).message };
    }
  },
  ip: (logger) => ({ writer: new IpWriter(new IpBatch(logger)) }),
};

/**
 * The writer to use: the one `env.ROUTERD_BGP_FIB_WRITER` names, else the first of the table that opens.
 * A writer that cannot open (no addon built, not Linux) falls back to the next, with its reason logged.
 */
export function openFibWriter(table: WriterTable, logger: Logger, env: NodeJS.ProcessEnv = process.env): FibWriter {
  const kinds = Object.keys(table) as FibWriterKind[];
  const asked = env[WRITER_ENV];
  if (asked !== undefined && asked !== "" && !kinds.includes(asked as FibWriterKind)) {
    logger.warn({ [WRITER_ENV]: asked, known: kinds }, "unknown FIB writer asked for: using the default order");
  }
  const order = kinds.includes(asked as FibWriterKind) ? [asked as FibWriterKind, ...kinds.filter((k) => k !== asked)] : kinds;
  const refused: string[] = [];
  for (const kind of order) {
    const opened = table[kind](logger);
    if ("writer" in opened) {
      logger.info({ writer: kind, ...(refused.length > 0 ? { instead: refused.join("; ") } : {}) }, `FIB writer: ${kind}`);
      return opened.writer;
    }
    refused.push(`${kind}: ${opened.reason}`);
  }
  throw new Error(`no FIB writer: ${refused.join("; ")}`);
}
