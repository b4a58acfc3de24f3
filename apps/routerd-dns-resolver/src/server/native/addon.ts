// Loads native/udp-batch.c's build (dist/native/udp-batch.node) when this host can use it. Anything that
// stops it (not Linux, not built, ROUTERD_DNS_UDP=dgram) becomes the reason the resolver reports for
// using node:dgram instead.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { BATCH, META, PKT, SEND_MAX, SLOTS } from "./layout.js";

export interface OpenedSocket {
  handle: object;
  slots: Buffer[];
  port: number;
}

/** The addon's functions (native/udp-batch.c). */
export interface UdpBatchAddon {
  open(address: string, port: number, rcvbuf: number, sndbuf: number, onBatch: (slot: number, count: number, errno: number) => void): OpenedSocket;
  send(handle: object, staging: Buffer, count: number, slot: number): number;
  close(handle: object): void;
  /** glibc malloc_trim(0): hands free C-heap pages back to the kernel; true when some went. */
  trim(): boolean;
  SLOTS: number;
  BATCH: number;
  PKT: number;
  META: number;
  SEND_MAX: number;
}

export type AddonChoice = { addon: UdpBatchAddon; path: string } | { addon?: undefined; reason: string };

// The same relative paths hold from src/server/native (tests), dist/server/native and the bundle's
// dist/bundle (which sits one level higher: see scripts/bundle.mjs).
const CANDIDATES = ["../../../dist/native/udp-batch.node", "../native/udp-batch.node"];

let cached: AddonChoice | undefined;

/** The addon for UDP, or why not. `env.ROUTERD_DNS_UDP=dgram` chooses node:dgram on purpose. */
export function loadUdpBatch(env: NodeJS.ProcessEnv = process.env): AddonChoice {
  if (env.ROUTERD_DNS_UDP === "dgram") return { reason: "ROUTERD_DNS_UDP=dgram" };
  return loadNative();
}

/** The addon whatever UDP uses (its trim() serves the memory settle either way), or why not. */
export function loadNative(): AddonChoice {
  cached ??= load();
  return cached;
}

function load(): AddonChoice {
  if (process.platform !== "linux") return { reason: `no recvmmsg/sendmmsg helper on ${process.platform}` };
  const path = CANDIDATES.map((c) => new URL(c, import.meta.url).pathname).find((p) => existsSync(p));
  if (path === undefined) return { reason: "udp-batch.node is not built (needs gcc at build time: npm run build in apps/routerd-dns-resolver)" };
  let addon: UdpBatchAddon;
  try {
    addon = createRequire(import.meta.url)(path) as UdpBatchAddon;
  } catch (err) {
    return { reason: `${path} does not load: ${(err as Error).message}` };
  }
  const mismatch = addon.SLOTS !== SLOTS || addon.BATCH !== BATCH || addon.PKT !== PKT || addon.META !== META || addon.SEND_MAX !== SEND_MAX;
  if (mismatch) return { reason: `${path} was built from another layout; rebuild it` };
  return { addon, path };
}
