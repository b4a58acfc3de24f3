// `routerd-pppoe-client hook --socket S --event E [--log FILE] -- ARGS...`: what pppd runs as ip-up, ip-down,
// ipv6-up and ipv6-down (pppd/render.ts writes the scripts). It reads pppd's arguments and variables and
// reports them to the daemon's Command rpc; it never fails pppd (exit 0), and retries while the daemon's
// socket is not there yet: the daemon dials before it loads its gRPC machinery (early-dial.ts), so pppd can be
// up well before the socket serves on a slow box. It keeps trying as long as its pppd runs (a report about a
// pppd that is gone is moot), up to RETRY_FOR_MS. pppd gives hooks no stdout or stderr, so each run appends
// one line (outcome and time taken) to the --log file.
import { appendFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { HOOK_COMMAND } from "../names.js";
import { callCommand } from "./wire.js";

const RETRY_FOR_MS = 600_000;
const RETRY_EVERY_MS = 200;
const CALL_TIMEOUT_MS = 10_000;

/**
 * An IPv6 address as iproute2 prints it (RFC 5952): pppd writes every group (fe80::0000:0000:0000:0001), and
 * routes built from that text would never compare equal to what the kernel reports. The URL parser
 * serializes an IPv6 host in that canonical form; anything that is not an address is kept as it is.
 */
export function canonicalIpv6(text: string): string {
  try {
    return new URL(`http://[${text}]/`).hostname.slice(1, -1);
  } catch {
    return text;
  }
}

/**
 * The report for one hook run. pppd's arguments: interface, tty, speed, local address, remote address,
 * ipparam (for ipv6-*, the link-local addresses). Variables: IPLOCAL, IPREMOTE, DNS1, DNS2 (usepeerdns),
 * LLLOCAL, LLREMOTE (IPv6), PPPD_PID.
 */
export function hookArgs(event: string, argv: string[], env: NodeJS.ProcessEnv): Record<string, string> {
  if (event === "mpd-up" || event === "mpd-down") return mpdHookArgs(event, argv);
  const [ifname = env.IFNAME ?? "", , , local = "", remote = ""] = argv;
  const out: Record<string, string> = { event, ifname };
  if (event.startsWith("ipv6-")) {
    out.localLinkLocal = canonicalIpv6(env.LLLOCAL ?? local);
    out.peerLinkLocal = canonicalIpv6(env.LLREMOTE ?? remote);
  } else {
    out.local = env.IPLOCAL ?? local;
    out.remote = env.IPREMOTE ?? remote;
    const dns = [env.DNS1, env.DNS2].filter((d): d is string => !!d);
    if (dns.length) out.dnsServers = dns.join(",");
  }
  if (env.PPPD_PID) out.pppdPid = env.PPPD_PID;
  return out;
}

/**
 * mpd5's up- and down-scripts (FreeBSD): `interface proto local remote authname [dns1 ip] [dns2 ip] peer`,
 * proto inet or inet6 (link-locals carry a %scope).
 */
function mpdHookArgs(event: "mpd-up" | "mpd-down", argv: string[]): Record<string, string> {
  const [ifname = "", proto = "inet", local = "", remote = "", , ...rest] = argv;
  const v6 = proto === "inet6";
  const direction = event === "mpd-up" ? "up" : "down";
  const out: Record<string, string> = { event: `${v6 ? "ipv6" : "ip"}-${direction}`, ifname };
  const bare = (a: string) => a.split("%")[0]!.split("/")[0]!;
  if (v6) Object.assign(out, { localLinkLocal: bare(local), peerLinkLocal: bare(remote) });
  else {
    Object.assign(out, { local: bare(local), remote: bare(remote) });
    const dns = [rest.indexOf("dns1"), rest.indexOf("dns2")].filter((i) => i >= 0).map((i) => rest[i + 1]!).filter(Boolean);
    if (dns.length) out.dnsServers = dns.join(",");
  }
  return out;
}

/** The hook's pppd still runs (PPPD_PID; without it, assume so). */
function pppdRuns(env: NodeJS.ProcessEnv): boolean {
  const pid = Number(env.PPPD_PID);
  if (!Number.isInteger(pid) || pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

export async function runHook(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: { socket: { type: "string" }, event: { type: "string" }, log: { type: "string" } },
  });
  if (!values.socket || !values.event) {
    process.stderr.write("usage: routerd-pppoe-client hook --socket SOCKET --event ip-up|ip-down|ipv6-up|ipv6-down -- PPPD_ARGS...\n");
    return 2;
  }
  const args = hookArgs(values.event, positionals, env);
  const started = Date.now();
  const note = (outcome: string): void => {
    const line = `${new Date().toISOString()} ${values.event} ${outcome} after ${Date.now() - started} ms (uptime ${Math.round(process.uptime() * 1000)} ms)\n`;
    if (!values.log) return;
    try {
      appendFileSync(values.log, line, { mode: 0o600 });
    } catch {
      /* the log is for operators; the report is what matters */
    }
  };
  for (;;) {
    const r = await callCommand(values.socket, HOOK_COMMAND, args, CALL_TIMEOUT_MS);
    if (r.status === 0) {
      note("reported");
      return 0;
    }
    // A gRPC error is an answer (the daemon refused the report): retrying cannot help.
    if (r.status !== undefined || Date.now() - started > RETRY_FOR_MS || !pppdRuns(env)) {
      note(`not reported: ${r.message || `grpc-status ${r.status}`}${pppdRuns(env) ? "" : " (pppd is gone)"}`);
      return 0;
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_EVERY_MS));
  }
}
