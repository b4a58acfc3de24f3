// Names of DHCP clients from the managed dnsmasq's lease file. The file is re-read when it changes (inotify
// plus a light stat poll, since dnsmasq rewrites it in place), and leases are dropped when they expire even
// if the file does not change. Each client with a usable host name gets <hostname>.<suffix> (A or AAAA);
// the zone store adds the PTR records.
import { watch, type FSWatcher } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { isIP } from "node:net";
import { SourceFilter } from "../config/cidr.js";
import { isHostLabel, type DhcpNamesConfig } from "../config/config.js";

export interface Lease {
  /** Seconds since the epoch; 0 for an infinite lease. */
  expiry: number;
  address: string;
  hostname: string;
}

/** dnsmasq's format: "<expiry> <mac|iaid> <address> <hostname|*> <client-id>", plus a "duid ..." line. */
export function parseLeases(text: string): Lease[] {
  const out: Lease[] = [];
  for (const line of text.split("\n")) {
    const f = line.trim().split(/\s+/);
    if (f.length < 4 || f[0] === "duid") continue;
    const expiry = Number(f[0]);
    const address = f[2]!;
    const hostname = f[3]!;
    if (!Number.isInteger(expiry) || isIP(address) === 0 || hostname === "*") continue;
    out.push({ expiry, address, hostname });
  }
  return out;
}

export interface DhcpName {
  hostname: string;
  address: string;
  family: 4 | 6;
}

/** The names to publish now: live leases in the networks, one address per host name and family (the newest). */
export function namesFromLeases(leases: readonly Lease[], cfg: Pick<DhcpNamesConfig, "networks">, nowSeconds: number): DhcpName[] {
  const filter = new SourceFilter(cfg.networks);
  const best = new Map<string, Lease & { family: 4 | 6 }>();
  for (const l of leases) {
    if (l.expiry !== 0 && l.expiry <= nowSeconds) continue;
    if (!isHostLabel(l.hostname) || !filter.allows(l.address)) continue;
    const family = isIP(l.address) === 6 ? 6 : 4;
    const key = `${l.hostname.toLowerCase()}/${family}`;
    const prev = best.get(key);
    const later = (a: number, b: number) => (a === 0 ? true : b === 0 ? false : a > b);
    if (prev === undefined || later(l.expiry, prev.expiry)) best.set(key, { ...l, family });
  }
  return [...best.values()].map((l) => ({ hostname: l.hostname, address: l.address, family: l.family })).sort((a, b) => (a.hostname < b.hostname ? -1 : a.hostname > b.hostname ? 1 : a.family - b.family));
}

/** The earliest future expiry among leases (seconds), or undefined. */
export function nextExpiry(leases: readonly Lease[], nowSeconds: number): number | undefined {
  let next: number | undefined;
  for (const l of leases) if (l.expiry > nowSeconds && (next === undefined || l.expiry < next)) next = l.expiry;
  return next;
}

const POLL_MS = 500;

/** Follows one lease file; calls onChange with the current names whenever they change. */
export class LeaseWatcher {
  private leases: Lease[] = [];
  private names = "";
  private watcher: FSWatcher | undefined;
  private poll: NodeJS.Timeout | undefined;
  private expiryTimer: NodeJS.Timeout | undefined;
  private lastStat = "";
  private reading = false;
  private again = false;
  private stopped = false;

  constructor(
    readonly config: DhcpNamesConfig,
    private readonly onChange: (names: DhcpName[]) => void,
    private readonly onError: (err: Error) => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {}

  current(): DhcpName[] {
    return namesFromLeases(this.leases, this.config, Math.floor(this.now() / 1000));
  }

  async start(): Promise<void> {
    await this.read();
    try {
      // The directory, not the file: dnsmasq may create the file after we start.
      this.watcher = watch(dirname(this.config.leaseFile), (_event, file) => {
        if (file === null || file === basename(this.config.leaseFile)) void this.read();
      });
      this.watcher.on("error", () => undefined);
    } catch {
      // No directory yet: the poll below notices when it appears.
    }
    this.poll = setInterval(() => void this.checkStat(), POLL_MS);
    this.poll.unref();
  }

  private async checkStat(): Promise<void> {
    let sig = "absent";
    try {
      const s = await stat(this.config.leaseFile);
      sig = `${s.mtimeMs}/${s.size}/${s.ino}`;
    } catch {
      // absent
    }
    if (sig !== this.lastStat) await this.read();
  }

  private async read(): Promise<void> {
    if (this.stopped) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    try {
      do {
        this.again = false;
        let text = "";
        try {
          const s = await stat(this.config.leaseFile);
          this.lastStat = `${s.mtimeMs}/${s.size}/${s.ino}`;
          text = await readFile(this.config.leaseFile, "utf8");
        } catch (err) {
          this.lastStat = "absent";
          if ((err as NodeJS.ErrnoException).code !== "ENOENT") this.onError(err as Error);
        }
        this.leases = parseLeases(text);
        this.publish();
      } while (this.again && !this.stopped);
    } finally {
      this.reading = false;
    }
  }

  /** Publishes when the set of names changed, and wakes up again at the next expiry. */
  private publish(): void {
    if (this.stopped) return;
    const names = this.current();
    const sig = JSON.stringify(names);
    if (sig !== this.names) {
      this.names = sig;
      this.onChange(names);
    }
    clearTimeout(this.expiryTimer);
    const next = nextExpiry(this.leases, Math.floor(this.now() / 1000));
    if (next !== undefined) {
      this.expiryTimer = setTimeout(() => this.publish(), Math.min(Math.max(100, next * 1000 - this.now() + 50), 3_600_000));
      this.expiryTimer.unref();
    }
  }

  stop(): void {
    this.stopped = true;
    this.watcher?.close();
    clearInterval(this.poll);
    clearTimeout(this.expiryTimer);
  }
}
