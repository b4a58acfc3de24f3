// The daemon form: one DhcpV6Client inside runDaemon(). The socket serves the common Daemon service (the
// binding as one resource named after the instance, events, renew/release commands) and Dhcpv6.GetLease.
// Engine state (duid, lease.json) lives in the kit's state dir <state-dir>/dhcpv6-client/<instance>/.
import { runDaemon, type DaemonContext, type DaemonHandle, type JsonObject } from "@routerd/daemon-kit";
import { Dhcpv6Service } from "@routerd/rpc/gen/routerd/dhcpv6/v1/dhcpv6";
import type { Logger } from "pino";
import { DhcpV6Client, type DhcpV6ClientOptions } from "./client.js";
import { daemonEvent } from "./daemon-events.js";
import type { ClientEvent } from "./events.js";
import { dhcpv6Server, type BindingView } from "./grpc-service.js";
import { expiresAt, prefixKey, type Information, type Lease } from "./lease.js";
import { HOLDING_PHASES, delegatedPrefixJson, pruneWithdrawn, recordWithdrawn, statusPhase, type Withdrawn } from "./status-view.js";

export const DAEMON_NAME = "dhcpv6-client";

export interface Dhcpv6DaemonOptions {
  instance: string;
  runDir?: string;
  /** Base state dir; the engine's files go to <stateDir>/dhcpv6-client/<instance>/. */
  stateDir?: string;
  logger?: Logger;
  /** Default true; in-process tests turn it off. */
  handleSignals?: boolean;
  signal?: AbortSignal;
  client: Omit<DhcpV6ClientOptions, "stateDir" | "logger" | "onEvent" | "onPhaseChange">;
  now?: () => number;
}

export interface Dhcpv6Daemon {
  daemon: DaemonHandle;
  client: DhcpV6Client;
}

/** Keeps the resource in GetStatus, the event log and the withdrawn-prefix list in step with the client. */
class BindingReporter {
  private withdrawn: Withdrawn[] = [];
  private last: Lease | undefined;
  private note = "";
  private timer: NodeJS.Timeout | undefined;
  /** The server's last DNS information, kept across restarts: routerd keeps passing it on unchanged. */
  private info: Information | undefined;

  constructor(
    private readonly ctx: Pick<DaemonContext, "status" | "events" | "instance" | "state">,
    private readonly client: DhcpV6Client,
    private readonly opts: { interface: string; kind: string; wantLength: number | undefined },
    private readonly now: () => number,
  ) {
    this.info = savedInformation(ctx.state.data);
  }

  onEvent(e: ClientEvent): void {
    const now = this.now();
    const removed = "removed" in e ? e.removed : [];
    const gone = (this.last?.prefixes ?? []).filter((p) => removed.includes(prefixKey(p)));
    if (gone.length) this.withdrawn = recordWithdrawn(this.withdrawn, gone, now);
    if (e.type === "lost" || e.type === "expired" || e.type === "released") this.note = `${e.type} ${removed.join(",")}`.trim();
    else if (e.type !== "information") this.note = "";
    const ev = daemonEvent(e);
    this.ctx.events.emit({ ...ev, resource: this.ctx.instance });
    this.refresh();
  }

  /** A stored lease at start is ours to keep using while it is checked (RFC 8415 §18.2.12). */
  private phase(): string {
    const lease = this.client.lease;
    if (this.client.phase === "init" && lease) {
      const now = this.now();
      const live = lease.prefixes.filter((p) => expiresAt(p) > now && (this.opts.wantLength === undefined || p.length === this.opts.wantLength));
      if (live.length) return "Rebinding";
    }
    return statusPhase(this.client.phase);
  }

  view(): BindingView {
    return {
      phase: this.phase(),
      interface: this.opts.interface,
      duid: this.client.duid,
      localAddress: this.client.localAddress,
      lease: this.client.lease,
      information: this.client.information ?? this.info,
      withdrawn: this.withdrawn,
    };
  }

  refresh(): void {
    const now = this.now();
    const lease = this.client.lease;
    const info = this.client.information;
    if (info && JSON.stringify(info) !== JSON.stringify(this.info)) {
      this.info = info;
      this.ctx.state.save({ information: { dnsServers: info.dnsServers, domainSearch: info.domainSearch } });
    }
    this.withdrawn = pruneWithdrawn(this.withdrawn, lease, now);
    this.last = lease;
    const phase = this.phase();
    const held = HOLDING_PHASES.has(phase) && lease !== undefined && lease.prefixes.length > 0;
    const details = held ? delegatedPrefixJson(lease, this.withdrawn, this.info) : this.idleDetails();
    const message = held ? lease.prefixes.map(prefixKey).join(", ") : this.note;
    this.ctx.status.setResource(this.ctx.instance, { kind: this.opts.kind, phase, message, ...(details ? { details: details as JsonObject } : {}) });
    this.ctx.status.setResourceCondition(this.ctx.instance, {
      type: "PrefixHeld",
      status: held ? "True" : "False",
      reason: phase,
      message,
    });
    this.schedule(now);
  }

  private idleDetails(): Record<string, unknown> | undefined {
    const info = this.info;
    if (!this.withdrawn.length && !info) return undefined;
    return {
      ...(info ? { dnsServers: info.dnsServers, domainSearch: info.domainSearch, sntpServers: info.sntpServers, ...(info.aftrName ? { aftrName: info.aftrName } : {}) } : {}),
      ...(this.withdrawn.length ? { withdrawn: this.withdrawn.map((w) => ({ prefix: w.prefix, prefixLength: w.prefixLength, until: new Date(w.until).toISOString() })) } : {}),
    };
  }

  /** Withdrawn entries run out on their own: refresh when the next one does. */
  private schedule(now: number): void {
    clearTimeout(this.timer);
    const next = Math.min(...this.withdrawn.map((w) => w.until));
    if (Number.isFinite(next)) {
      this.timer = setTimeout(() => this.refresh(), Math.min(Math.max(0, next - now) + 10, 2_147_483_647));
      this.timer.unref();
    }
  }

  close(): void {
    clearTimeout(this.timer);
  }
}

function savedInformation(data: unknown): Information | undefined {
  const i = (data as { information?: { dnsServers?: unknown; domainSearch?: unknown } } | null)?.information;
  const strings = (x: unknown) => (Array.isArray(x) ? x.filter((v): v is string => typeof v === "string") : []);
  return i ? { dnsServers: strings(i.dnsServers), domainSearch: strings(i.domainSearch), sntpServers: [] } : undefined;
}

/** Starts the daemon (DaemonStartError), then the client (its error stops the daemon again). */
export async function startDhcpv6Daemon(opts: Dhcpv6DaemonOptions): Promise<Dhcpv6Daemon> {
  const now = opts.now ?? Date.now;
  let client: DhcpV6Client | undefined;
  let reporter: BindingReporter | undefined;
  const releaseOnStop = opts.client.releaseOnStop ?? true;
  const daemon = await runDaemon({
    name: DAEMON_NAME,
    instance: opts.instance,
    ...(opts.runDir !== undefined ? { runDir: opts.runDir } : {}),
    ...(opts.stateDir !== undefined ? { stateDir: opts.stateDir } : {}),
    ...(opts.logger !== undefined ? { logger: opts.logger } : {}),
    ...(opts.handleSignals !== undefined ? { handleSignals: opts.handleSignals } : {}),
    ...(opts.signal !== undefined ? { signal: opts.signal } : {}),
    services: () => [{ definition: Dhcpv6Service, implementation: dhcpv6Server(() => reporter!.view()) }],
    commands: {
      renew: () => {
        client!.renew();
        return { message: `renew requested (phase ${client!.phase})` };
      },
      release: async () => {
        await client!.release();
        return { message: `released; phase ${client!.phase}, send "renew" to acquire again` };
      },
    },
    onStop: async () => {
      await client?.stop({ release: releaseOnStop });
      reporter?.refresh();
      reporter?.close();
    },
  });
  const c = new DhcpV6Client({
    ...opts.client,
    stateDir: daemon.stateDir,
    logger: daemon.logger,
    onEvent: (e) => reporter?.onEvent(e),
    onPhaseChange: () => reporter?.refresh(),
  });
  client = c;
  reporter = new BindingReporter(
    daemon,
    c,
    {
      interface: opts.client.interface,
      kind: opts.client.informationOnly ? "DHCPv6Information" : "DHCPv6PrefixDelegation",
      wantLength: opts.client.hint?.length ?? opts.client.prefixLength,
    },
    now,
  );
  try {
    // start() loads the stored lease synchronously, so the first GetStatus already shows it.
    await c.start();
  } catch (err) {
    client = undefined; // nothing to release
    await daemon.stop("client failed to start");
    throw err;
  }
  reporter.refresh();
  return { daemon, client: c };
}
