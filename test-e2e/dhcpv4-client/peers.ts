// The two real programs of these scenarios: dnsmasq as the ISP's DHCP server, and routerd-dhcpv4-client
// (the built program, run in the router namespace). The client helper can also play routerd core's part
// and put the leased address on the interface, because replies to RENEW and RELEASE go to that address.
import { execFileSync, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { Lab, nsExec, waitForExit } from "./netns.js";

const ROOT = new URL("../../", import.meta.url).pathname;
export const CLIENT_BIN = join(ROOT, "apps/routerd-dhcpv4-client/bin/routerd-dhcpv4-client.js");

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** The client runs from dist/ (it must start inside a namespace); rebuild it and its dependency when stale. */
export function ensureBuilt(): void {
  const tsc = join(ROOT, "node_modules/typescript/bin/tsc");
  for (const pkg of ["packages/resource", "apps/routerd-dhcpv4-client"]) {
    const dist = join(ROOT, pkg, "dist/index.js");
    if (existsSync(dist) && statSync(dist).mtimeMs >= newestMtime(join(ROOT, pkg, "src"))) continue;
    execFileSync(process.execPath, [tsc, "-p", join(ROOT, pkg, "tsconfig.json")], { stdio: "inherit" });
  }
}

class LineCollector {
  readonly lines: string[] = [];
  private buf = "";
  private readonly waiters: Array<() => void> = [];

  constructor(stream: NodeJS.ReadableStream | null) {
    stream?.setEncoding("utf8");
    stream?.on("data", (chunk: string) => {
      this.buf += chunk;
      let nl: number;
      while ((nl = this.buf.indexOf("\n")) !== -1) {
        this.lines.push(this.buf.slice(0, nl));
        this.buf = this.buf.slice(nl + 1);
      }
      for (const w of this.waiters.splice(0)) w();
    });
  }

  /** Resolves with the first line at index >= from matching `test`. */
  async waitFor(test: (line: string) => boolean, from: number, timeoutMs: number, what: string): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (let i = from; i < this.lines.length; i++) if (test(this.lines[i] as string)) return i;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 1000));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }
}

export interface DnsmasqOptions {
  ns: string;
  iface: string;
  /** dnsmasq --dhcp-range value, e.g. "10.77.0.100,10.77.0.150,2m" (dnsmasq's minimum lease is 2 minutes). */
  range: string;
  leaseFile: string;
  extra?: string[];
}

export interface DnsmasqLease {
  expires: number;
  mac: string;
  address: string;
  hostname: string;
  clientId: string;
}

export class Dnsmasq {
  private readonly log: LineCollector;

  private constructor(
    readonly child: ChildProcess,
    readonly opts: DnsmasqOptions,
  ) {
    this.log = new LineCollector(child.stderr);
  }

  static async start(lab: Lab, opts: DnsmasqOptions): Promise<Dnsmasq> {
    const child = lab.spawn(opts.ns, [
      "dnsmasq",
      "--no-daemon",
      "--port=0",
      "--conf-file=/dev/null",
      `--interface=${opts.iface}`,
      "--bind-interfaces",
      `--dhcp-range=${opts.range}`,
      `--dhcp-leasefile=${opts.leaseFile}`,
      `--pid-file=${opts.leaseFile}.pid`,
      "--dhcp-authoritative",
      "--log-dhcp",
      ...(opts.extra ?? []),
    ]);
    const d = new Dnsmasq(child, opts);
    await d.log.waitFor((l) => l.includes("DHCP, IP range"), 0, 10_000, "dnsmasq start");
    return d;
  }

  get lines(): string[] {
    return this.log.lines;
  }

  /** Lines such as "DHCPACK(if) 10.0.0.5 aa:bb:.." */
  dhcp(kind: string): string[] {
    return this.lines.filter((l) => l.includes(` ${kind}(`));
  }

  waitForLog(re: RegExp, timeoutMs: number, from = 0): Promise<number> {
    return this.log.waitFor((l) => re.test(l), from, timeoutMs, `dnsmasq log ${re}`);
  }

  leases(): DnsmasqLease[] {
    if (!existsSync(this.opts.leaseFile)) return [];
    return readFileSync(this.opts.leaseFile, "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "" && !l.startsWith("duid"))
      .map((l) => {
        const [expires, mac, address, hostname, clientId] = l.split(" ");
        return { expires: Number(expires), mac: mac ?? "", address: address ?? "", hostname: hostname ?? "", clientId: clientId ?? "" };
      });
  }

  async stop(): Promise<void> {
    this.child.kill("SIGTERM");
    await waitForExit(this.child, 5000);
  }
}

export type ClientEvent = Record<string, unknown> & { event: string; lease?: Record<string, unknown> & { address: string; prefixLength: number } };

export interface ClientStartOptions {
  ns: string;
  iface: string;
  stateDir: string;
  args?: string[];
  /** Put leased addresses on the interface and take them off again, as routerd core does. */
  apply?: boolean;
}

export class ClientProcess {
  private readonly out: LineCollector;
  private readonly err: LineCollector;
  private cursor = 0;
  readonly startedAt = Date.now();

  private constructor(
    readonly child: ChildProcess,
    readonly opts: ClientStartOptions,
  ) {
    this.out = new LineCollector(child.stdout);
    this.err = new LineCollector(child.stderr);
    if (opts.apply) child.stdout?.on("data", () => this.applyNew());
  }

  static start(lab: Lab, opts: ClientStartOptions): ClientProcess {
    const child = lab.spawn(opts.ns, [
      process.execPath,
      CLIENT_BIN,
      "--interface",
      opts.iface,
      "--state-dir",
      opts.stateDir,
      "--json",
      "--log-level",
      "debug",
      ...(opts.args ?? []),
    ]);
    return new ClientProcess(child, opts);
  }

  get events(): ClientEvent[] {
    return this.out.lines.map((l) => JSON.parse(l) as ClientEvent);
  }

  /** pino records from stderr. */
  get logs(): Array<Record<string, unknown>> {
    return this.err.lines.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  /** Waits for the next event of this type after the previous one returned; earlier events stay in `events`. */
  async next(type: string, timeoutMs: number): Promise<ClientEvent> {
    const i = await this.out.waitFor((l) => (JSON.parse(l) as ClientEvent).event === type, this.cursor, timeoutMs, `client event ${type}`);
    this.cursor = i + 1;
    return JSON.parse(this.out.lines[i] as string) as ClientEvent;
  }

  private applied = 0;

  private applyNew(): void {
    const events = this.events;
    for (; this.applied < events.length; this.applied++) {
      const ev = events[this.applied] as ClientEvent;
      const l = ev.lease;
      if (!l) continue;
      const cidr = `${l.address}/${l.prefixLength}`;
      if (ev.event === "bound" || ev.event === "renewed") nsExec(this.opts.ns, ["ip", "addr", "replace", cidr, "dev", this.opts.iface]);
      if (ev.event === "lost" || ev.event === "released") nsExec(this.opts.ns, ["ip", "addr", "del", cidr, "dev", this.opts.iface], { allowFail: true });
    }
  }

  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<number | null> {
    this.child.kill(signal);
    return waitForExit(this.child, 8000);
  }
}
