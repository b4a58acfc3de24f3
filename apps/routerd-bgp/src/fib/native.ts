// Loads native/netlink-route.c's build (dist/native/netlink-route.node) when this host can use it; anything
// that stops it becomes the reason routerd-bgp logs for writing the FIB with `ip -batch` instead.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { endianness } from "node:os";

/** The addon's functions (native/netlink-route.c). */
export interface NetlinkRouteAddon {
  open(rcvbuf: number, sndbuf: number): { handle: object; rcvbuf: number; sndbuf: number; maxMessages: number };
  write(handle: object, buffer: Buffer, count: number, done: (err: Error | null, r?: { failed: [number, string][]; sends: number }) => void): void;
  close(handle: object): void;
  ABI: number;
}

const ABI = 1;
// The same relative paths hold from src/fib (tests), dist/fib and the bundle's dist/bundle (scripts/bundle.mjs).
const CANDIDATES = ["../../dist/native/netlink-route.node", "../native/netlink-route.node"];

let cached: { addon: NetlinkRouteAddon; path: string } | { reason: string } | undefined;

export function loadNetlinkRoute(): { addon: NetlinkRouteAddon; path: string } | { reason: string } {
  cached ??= load();
  return cached;
}

function load(): { addon: NetlinkRouteAddon; path: string } | { reason: string } {
  if (process.platform !== "linux") return { reason: `no rtnetlink on ${process.platform}` };
  // netlink-encode.ts writes host-order fields as little-endian.
  if (endianness() !== "LE") return { reason: "a big-endian host (the encoder writes little-endian)" };
  const path = CANDIDATES.map((c) => new URL(c, import.meta.url).pathname).find((p) => existsSync(p));
  if (path === undefined) return { reason: "netlink-route.node is not built (needs gcc at build time: npm run build in apps/routerd-bgp)" };
  try {
    const addon = createRequire(import.meta.url)(path) as NetlinkRouteAddon;
    if (addon.ABI !== ABI) return { reason: `${path} was built from another version; rebuild it` };
    return { addon, path };
  } catch (err) {
    return { reason: `${path} does not load: ${(err as Error).message}` };
  }
}
