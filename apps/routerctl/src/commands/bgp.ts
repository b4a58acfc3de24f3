// routerctl bgp peers|routes: a routerd-bgp's neighbors and routes over its socket (<run-dir>/bgp/<router>.sock).
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { credentials, type ServiceError } from "@grpc/grpc-js";
import type { Command, Io, OptionSpec, OptionValues } from "@routerd/cli";
import { daemonSocketPath, unixTarget } from "@routerd/rpc";
import { BgpClient, type ListPeersResponse, type ListRoutesResponse, type PeerInfo, type RouteInfo } from "@routerd/rpc/gen/routerd/bgp/v1/bgp";
import { SOCKET_OPTIONS } from "./common.js";

const ROUTER_OPTION: Record<string, OptionSpec> = {
  ...SOCKET_OPTIONS,
  router: { type: "string", valueName: "NAME", description: "the BGPRouter (needed when there are several)" },
};

/** The BGPRouter's socket: --router, or the only routerd-bgp instance running. */
function socketFor(v: OptionValues): string {
  const runDir = String(v["run-dir"]);
  if (v.router) return daemonSocketPath(runDir, "bgp", String(v.router));
  let names: string[] = [];
  try {
    names = readdirSync(join(runDir, "bgp")).filter((f) => f.endsWith(".sock") && !f.endsWith(".gobgpd.sock")).map((f) => f.slice(0, -5));
  } catch {
    /* no directory: no router */
  }
  if (names.length === 1) return daemonSocketPath(runDir, "bgp", names[0]!);
  throw new Error(names.length === 0 ? `no routerd-bgp is running (no socket under ${join(runDir, "bgp")})` : `several BGP routers (${names.join(", ")}): give --router NAME`);
}

function call<Res>(socket: string, fn: (c: BgpClient, cb: (err: ServiceError | null, res: Res) => void) => void): Promise<Res> {
  const client = new BgpClient(unixTarget(socket), credentials.createInsecure());
  return new Promise<Res>((resolve, reject) => {
    client.waitForReady(new Date(Date.now() + 2000), (err) => (err ? reject(new Error(`${socket}: not answering (${err.message})`)) : fn(client, (e, r) => (e ? reject(e) : resolve(r)))));
  }).finally(() => client.close());
}

async function run(v: OptionValues, io: Io, body: (socket: string) => Promise<void>): Promise<number> {
  try {
    await body(socketFor(v));
    return 0;
  } catch (err) {
    const message = (err as ServiceError).details || (err as Error).message;
    if (v.json) io.out(JSON.stringify({ error: { message } }));
    else io.err(`routerctl: ${message}`);
    return 1;
  }
}

const duration = (s: number) => (s >= 86400 ? `${Math.floor(s / 86400)}d${Math.floor((s % 86400) / 3600)}h` : s >= 3600 ? `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m` : `${Math.floor(s / 60)}m${s % 60}s`);

export function peersText(peers: PeerInfo[]): string[] {
  const rows = peers.map((p) => [p.address, p.peer, String(p.peerAsn), p.state, p.state === "Established" ? duration(p.uptimeSeconds) : "-", `${p.receivedPrefixes}/${p.acceptedPrefixes}/${p.advertisedPrefixes}`]);
  return table(["NEIGHBOR", "PEER", "ASN", "STATE", "UP", "RCVD/ACPT/ADV"], rows);
}

export function routesText(routes: RouteInfo[]): string[] {
  const rows = routes.map((r) => [
    r.prefix,
    r.local ? "(local)" : r.nextHops.join(","),
    r.local ? "-" : r.installedNextHops.length ? (r.installedNextHops.join(",") === r.nextHops.join(",") ? "yes" : r.installedNextHops.join(",")) : "no",
    r.asPath.join(" ") || "-",
    r.communities.join(" ") || "-",
  ]);
  return table(["PREFIX", "NEXT HOPS", "IN FIB", "AS PATH", "COMMUNITIES"], rows);
}

function table(head: string[], rows: string[][]): string[] {
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [head, ...rows].map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(width[i]!))).join("  "));
}

const peers: Command = {
  name: "peers",
  summary: "neighbors of a BGP router: session state, uptime, received/accepted/advertised prefixes",
  usage: "peers [--router NAME] [--json] [--run-dir DIR]",
  options: ROUTER_OPTION,
  examples: [{ command: "routerctl bgp peers", description: "one line per neighbor" }],
  run: (v, io) =>
    run(v, io, async (socket) => {
      const res = await call<ListPeersResponse>(socket, (c, cb) => c.listPeers({}, cb));
      if (v.json) io.out(JSON.stringify(res.peers, null, 2));
      else for (const line of peersText(res.peers)) io.out(line);
    }),
};

const routes: Command = {
  name: "routes",
  summary: "best paths of a BGP router and whether the kernel FIB holds them",
  usage: "routes [--prefix PREFIX] [--limit N] [--router NAME] [--json] [--run-dir DIR]",
  options: {
    ...ROUTER_OPTION,
    prefix: { type: "string", valueName: "PREFIX", description: "only this prefix and the ones inside it" },
    limit: { type: "string", valueName: "N", description: "at most N routes (default 1000)" },
  },
  examples: [
    { command: "routerctl bgp routes --prefix 10.0.0.0/8", description: "routes inside 10.0.0.0/8 with next hops and FIB state" },
    { command: "routerctl bgp routes --json", description: "the first 1000 routes and the FIB counters as JSON" },
  ],
  run: (v, io) =>
    run(v, io, async (socket) => {
      const limit = v.limit !== undefined ? Number(v.limit) : 0;
      if (!Number.isInteger(limit) || limit < 0) throw new Error("--limit must be a whole number");
      const res = await call<ListRoutesResponse>(socket, (c, cb) => c.listRoutes({ prefix: String(v.prefix ?? ""), limit }, cb));
      if (v.json) {
        io.out(JSON.stringify(res, null, 2));
        return;
      }
      for (const line of routesText(res.routes)) io.out(line);
      if (res.truncated) io.out(`(more routes than ${limit || 1000}: use --limit or --prefix)`);
      if (res.fib) io.out(`FIB: ${res.fib.installed} installed (protocol ${res.fib.protocol}, table ${res.fib.table}, metric ${res.fib.metric}), ${res.fib.pending} pending, ${res.fib.failures} failed writes`);
    }),
};

export const bgpCommand: Command = {
  name: "bgp",
  summary: "BGP routers (routerd-bgp): neighbors and routes",
  usage: "bgp (peers | routes) [options]",
  description: "Asks routerd-bgp over <run-dir>/bgp/<router>.sock; with one BGPRouter, --router is not needed.",
  options: SOCKET_OPTIONS,
  examples: [{ command: "routerctl bgp peers", description: "session states" }],
  subcommands: [peers, routes],
};
