// Keeps the daemon's view of the lease in step with the engine: the resource GetStatus lists (named after
// the instance, kind DHCPv4Client), its LeaseHeld condition, and the dhcpv4.lease.* events. It can run
// before the daemon kit is up (the engine starts first, so the first DISCOVER does not wait for gRPC to
// load): events are queued and the status is published once attach() gets the kit's context.
import type { DaemonContext, JsonObject, SpanRecord } from "@routerd/daemon-kit";
import type { ClientSnapshot } from "./client.js";
import type { LeaseEvent, LeaseEventType, Phase } from "./fsm-types.js";
import type { DhcpLease } from "./lease.js";
import { LeaseTransactions } from "./lease-trace.js";
import { HOLDING_PHASES, daemonEvent, dhcpv4LeaseJson, resourcePhase, type DaemonEventInput } from "./status-view.js";

export const RESOURCE_KIND = "DHCPv4Client";

type Ctx = Pick<DaemonContext, "status" | "events"> & Partial<Pick<DaemonContext, "trace">>;

export interface ClientIdentity {
  interface: string;
  /** Colon hex; "" until the engine has read the interface. */
  hardwareAddress: string;
  clientId: string;
}

/** Everything GetLease answers with. */
export interface LeaseView extends ClientIdentity {
  phase: string;
  state: Phase;
  held: boolean;
  lease: DhcpLease | null;
  resumed: boolean;
  lastEvent: LeaseEventType | "";
  lastEventAt: number | undefined;
}

const MAX_TIMEOUT_MS = 0x7fffffff;

export class LeaseReporter {
  private ctx: Ctx | undefined;
  private readonly queued: DaemonEventInput[] = [];
  private snapshot: ClientSnapshot = { phase: "idle", lease: null };
  private started = false;
  private resumed = false;
  private lastEvent: LeaseEventType | "" = "";
  private lastEventAt: number | undefined;
  private note = "";
  private timer: NodeJS.Timeout | undefined;
  private readonly transactions: LeaseTransactions;
  /** A transaction that ended before the kit was up (the first DISCOVER → ACK usually does). */
  private earlySpan: SpanRecord | undefined;

  constructor(
    private readonly instance: string,
    private readonly identity: () => ClientIdentity,
    private readonly now: () => number = Date.now,
  ) {
    this.transactions = new LeaseTransactions(instance, now);
  }

  /** The kit is up: flush queued events and publish the current state. */
  attach(ctx: Ctx): void {
    this.ctx = ctx;
    for (const e of this.queued.splice(0)) ctx.events.emit({ ...e, resource: this.instance });
    if (this.earlySpan) ctx.trace?.(this.earlySpan);
    this.earlySpan = undefined;
    this.publish();
  }

  onEvent(ev: LeaseEvent): void {
    this.lastEvent = ev.type;
    this.lastEventAt = this.now();
    if (ev.type === "bound") this.resumed = ev.resumed === true;
    if (ev.type === "renewed") this.resumed = false;
    const input = daemonEvent(ev);
    if (ev.type !== "bound" && ev.type !== "renewed" && ev.type !== "rebinding") this.note = input.message;
    if (this.ctx) this.ctx.events.emit({ ...input, resource: this.instance });
    else this.queued.push(input);
    // The engine reports its new state before the event; the message names the event.
    this.publish();
  }

  onState(s: ClientSnapshot): void {
    const span = this.transactions.change(this.snapshot.phase, s.phase, s.lease);
    if (span && this.ctx) this.ctx.trace?.(span);
    else if (span) this.earlySpan = span;
    this.started = true;
    this.snapshot = s;
    this.publish();
  }

  view(): LeaseView {
    const { phase, lease } = this.snapshot;
    const shown = resourcePhase(phase, lease, this.now());
    const held = HOLDING_PHASES.has(shown) && lease !== null;
    return {
      ...this.identity(),
      phase: this.started ? shown : "Starting",
      state: phase,
      held,
      lease: held ? lease : null,
      resumed: held && this.resumed,
      lastEvent: this.lastEvent,
      lastEventAt: this.lastEventAt,
    };
  }

  close(): void {
    clearTimeout(this.timer);
  }

  private publish(): void {
    const ctx = this.ctx;
    if (!ctx || !this.started) return;
    const { phase: state, lease } = this.snapshot;
    // Stopped without a release: the lease stays valid and stored, and the next start resumes it. Leave the
    // held status in place, so what a restart restores from state.json never says the lease is gone.
    if (state === "stopped" && lease) return;
    const v = this.view();
    const message = v.lease ? `${v.lease.address}/${v.lease.prefixLength} from ${v.lease.serverId}${state === "rebooting" ? " (INIT-REBOOT: confirming the stored lease)" : ""}` : this.note;
    ctx.status.setResource(this.instance, {
      kind: RESOURCE_KIND,
      phase: v.phase,
      message,
      // No lease, no details: the core reads a phase without a lease as "remove the address".
      details: v.lease ? (dhcpv4LeaseJson(v.lease) as JsonObject) : undefined,
    });
    ctx.status.setResourceCondition(this.instance, { type: "LeaseHeld", status: v.held ? "True" : "False", reason: v.phase, message });
    this.scheduleExpiry(state, lease);
  }

  /** A stored lease being confirmed has no engine timer of its own: republish when it runs out. */
  private scheduleExpiry(state: Phase, lease: DhcpLease | null): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (state !== "rebooting" || !lease || lease.expiresAt === null) return;
    const delay = Math.min(Math.max(0, lease.expiresAt - this.now()) + 10, MAX_TIMEOUT_MS);
    this.timer = setTimeout(() => this.publish(), delay);
    this.timer.unref();
  }
}
