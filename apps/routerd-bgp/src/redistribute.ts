// redistribute.connected / redistribute.static: kernel routes of the main table (proto kernel: IPv4 scope
// link, every IPv6 one; proto static and boot) inside allowedPrefixes are originated into GoBGP with AddPath
// and withdrawn with DeletePath when they go. Re-read every few seconds, one dump per protocol asked for: the
// kernel filters a dump by protocol, so a main table holding a full BGP feed costs nothing here (a whole-table
// dump of 65k routes as JSON was ~0.9 s of CPU per read). Link-local and routerd-bgp's own routes never count.
import { spawn } from "node:child_process";
import { checkIpPrefix, type BGPRouterSpec } from "@routerd/api";
import type { Logger } from "pino";
import type { GobgpClient } from "./gobgp/client.js";
import { familyOf, originatedPath } from "./gobgp/codec.js";
import { canonicalPrefix } from "./fib/lines.js";

const INTERVAL_MS = 5000;

/** A route as `ip -j route show ... proto P` prints it (the protocol is left out: it is the filter's). */
interface KernelRouteJson {
  dst: string;
  scope?: string;
  type?: string;
}

type RedistributeSource = "connected" | "static";

/**
 * Which kernel protocols feed each source, and which of their routes count. Connected: the routes the
 * kernel made for an address — IPv4 ones have scope link, IPv6 ones have no scope (universe).
 */
const SOURCES: { source: RedistributeSource; proto: string; number: number; counts(route: KernelRouteJson, v6: boolean): boolean }[] = [
  { source: "connected", proto: "kernel", number: 2, counts: (r, v6) => v6 || r.scope === "link" },
  { source: "static", proto: "boot", number: 3, counts: () => true },
  { source: "static", proto: "static", number: 4, counts: () => true },
];

/** The dumps `spec` needs: one per (protocol, family) of a configured source. */
export function redistributionDumps(spec: BGPRouterSpec, ownProtocol: number): { proto: string; v6: boolean; args: string[] }[] {
  const out: { proto: string; v6: boolean; args: string[] }[] = [];
  for (const s of SOURCES) {
    if (spec.redistribute?.[s.source] === undefined || s.number === ownProtocol) continue;
    for (const v6 of [false, true]) out.push({ proto: s.proto, v6, args: [v6 ? "-6" : "-4", "route", "show", "table", "main", "proto", s.proto] });
  }
  return out;
}

function ipJson(args: string[]): Promise<KernelRouteJson[]> {
  return new Promise((resolve, reject) => {
    const child = spawn("ip", ["-j", ...args], { stdio: ["ignore", "pipe", "ignore"] });
    const out: Buffer[] = [];
    child.stdout.on("data", (d: Buffer) => out.push(d));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(JSON.parse(Buffer.concat(out).toString("utf8") || "[]") as KernelRouteJson[]) : reject(new Error(`ip ${args.join(" ")} exit ${code}`))));
  });
}

function parse(prefix: string): { bits: bigint; len: number; v6: boolean } {
  const [addr, l] = prefix.split("/") as [string, string];
  const v6 = addr.includes(":");
  let bits = 0n;
  if (v6) {
    const [head, tail] = addr.includes("::") ? (addr.split("::") as [string, string]) : [addr, undefined];
    const h = head ? head.split(":") : [];
    const t = tail ? tail.split(":") : [];
    const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill("0"), ...t];
    for (const g of groups) bits = (bits << 16n) | BigInt(Number.parseInt(g || "0", 16));
  } else {
    for (const o of addr.split(".")) bits = (bits << 8n) | BigInt(Number(o));
  }
  return { bits, len: Number(l), v6 };
}

/** `inner` lies inside `outer` (same family, at least as long, same leading bits). */
export function prefixWithin(inner: string, outer: string): boolean {
  const a = parse(inner);
  const b = parse(outer);
  if (a.v6 !== b.v6 || a.len < b.len) return false;
  const width = a.v6 ? 128n : 32n;
  const shift = width - BigInt(b.len);
  return a.bits >> shift === b.bits >> shift;
}

/** The prefixes to originate from one dump of `proto` routes (see redistributionDumps). */
export function selectRedistributed(routes: KernelRouteJson[], proto: string, v6: boolean, spec: BGPRouterSpec): string[] {
  const from = SOURCES.find((s) => s.proto === proto);
  const source = from ? spec.redistribute?.[from.source] : undefined;
  if (from === undefined || source === undefined) return [];
  const out: string[] = [];
  for (const route of routes) {
    if (route.type !== undefined && route.type !== "unicast") continue;
    if (!from.counts(route, v6)) continue;
    const prefix = canonicalPrefix(route.dst, v6);
    if (checkIpPrefix(prefix) !== undefined || prefix.startsWith("fe80:")) continue;
    if (source.allowedPrefixes !== undefined && !source.allowedPrefixes.some((a) => prefixWithin(prefix, a))) continue;
    out.push(prefix);
  }
  return out;
}

export class Redistributor {
  /** prefix → uuid GoBGP gave the originated path. */
  private readonly originated = new Map<string, Buffer>();
  private timer: NodeJS.Timeout | undefined;
  private spec: BGPRouterSpec | undefined;

  constructor(
    private readonly client: GobgpClient,
    private readonly logger: Logger,
    private readonly ownProtocol: number,
    /** A prefix started or stopped being originated here (the FIB re-chooses it). */
    private readonly onChange: (prefix: string) => void = () => undefined,
  ) {}

  originates(prefix: string): boolean {
    return this.originated.has(prefix);
  }

  /** gobgpd restarted: it holds none of our paths any more. */
  reset(): void {
    this.originated.clear();
  }

  async sync(spec: BGPRouterSpec): Promise<void> {
    this.spec = spec;
    clearTimeout(this.timer);
    try {
      const want = new Set<string>();
      const dumps = redistributionDumps(spec, this.ownProtocol);
      const results = await Promise.all(dumps.map((d) => ipJson(d.args)));
      dumps.forEach((d, i) => {
        for (const p of selectRedistributed(results[i] ?? [], d.proto, d.v6, spec)) want.add(p);
      });
      for (const prefix of want) {
        if (this.originated.has(prefix)) continue;
        const res = await this.client.addPath({ tableType: 0, vrfId: "", path: originatedPath(prefix) });
        this.originated.set(prefix, res.uuid);
        this.onChange(prefix);
      }
      for (const [prefix, uuid] of [...this.originated]) {
        if (want.has(prefix)) continue;
        await this.client.deletePath({ tableType: 0, vrfId: "", family: familyOf(prefix), uuid });
        this.originated.delete(prefix);
        this.onChange(prefix);
      }
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, "redistribution sync failed");
    }
    if (spec.redistribute !== undefined && this.spec !== undefined) {
      this.timer = setTimeout(() => void (this.spec && this.sync(this.spec)), INTERVAL_MS);
      this.timer.unref();
    }
  }

  list(): string[] {
    return [...this.originated.keys()].sort();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.spec = undefined;
  }
}
