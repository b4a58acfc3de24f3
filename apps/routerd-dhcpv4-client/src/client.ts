// DhcpV4Client: the engine that runs the pure state machine against a real socket, real timers, the
// lease file and the address probe. It reports lease events and never touches interface addresses.
import { EventEmitter } from "node:events";
import { createArpingProber, type AddressProber } from "./arp-probe.js";
import { DEFAULT_PARAMETER_REQUEST_LIST } from "./client-messages.js";
import { initialState, step } from "./client-fsm.js";
import { DEFAULT_TIMING, type Action, type ClientState, type FsmConfig, type FsmEvent, type LeaseEvent, type Phase, type TimerName } from "./fsm-types.js";
import { decodeMessage, encodeMessage, messageTypeOf } from "./codec.js";
import { clientIdFrom, toHex } from "./identity.js";
import { readInterfaceInfo, formatMac, type InterfaceInfo } from "./interface-info.js";
import { isIpv4 } from "./ipv4.js";
import type { EngineLogger } from "./line-logger.js";
import type { DhcpLease } from "./lease.js";
import { LeaseStore } from "./lease-store.js";
import { messageTypeName } from "./options.js";
import type { RetransmitPolicy } from "./retransmit.js";
import { openUdpTransport, type Transport } from "./transport.js";

export interface DhcpV4ClientOptions {
  interface: string;
  /** Directory for lease.json; created when missing. */
  stateDir: string;
  /** pino, or lineLogger() while pino is not loaded yet. */
  logger: EngineLogger;
  hostname?: string;
  /** See clientIdFrom(): hex bytes "01:..", free text, or the default 01 + hardware address. */
  clientId?: string | Uint8Array;
  vendorClass?: string;
  requestedAddress?: string;
  /** Send DHCPRELEASE on stop(); default true. */
  releaseOnStop?: boolean;
  /** Probe the acknowledged address with ARP and DECLINE it when in use; default false. */
  arpCheck?: boolean;
  parameterRequestList?: number[];
  retransmit?: Partial<RetransmitPolicy>;
  requestAttempts?: number;
  rebootAttempts?: number;
  renewRetransmitMinMs?: number;
  declineWaitMs?: number;
  /** Epoch milliseconds; lease times are stored in this clock. */
  clock?: () => number;
  rng?: () => number;
  prober?: AddressProber;
}

/** The engine's state after a step: what a status view needs. */
export interface ClientSnapshot {
  phase: Phase;
  /** Held (bound, renewing, rebinding) or being confirmed (rebooting); null otherwise. */
  lease: DhcpLease | null;
}

interface ClientEvents {
  event: [LeaseEvent];
  /** After every step that changed the phase or the lease, and after the sends queued before it. */
  state: [ClientSnapshot];
}

/** setTimeout's limit; longer lease timers are re-armed in steps. */
const MAX_TIMEOUT_MS = 0x7fffffff;
const TIMER_NAMES: ReadonlyArray<TimerName> = ["retransmit", "renew", "rebind", "expire", "restart"];
const HOLDS_LEASE: ReadonlyArray<Phase> = ["bound", "renewing", "rebinding"];

function checkText(name: string, value: string | undefined, max: number): void {
  if (value !== undefined && (value.length === 0 || Buffer.byteLength(value, "latin1") > max || /[^\x20-\x7e]/.test(value))) {
    throw new Error(`${name} must be 1..${max} printable ASCII characters`);
  }
}

export class DhcpV4Client extends EventEmitter<ClientEvents> {
  private state: ClientState;
  private cfg: FsmConfig | undefined;
  private transport: Transport | undefined;
  private store: LeaseStore | undefined;
  private prober: AddressProber | undefined;
  private info: InterfaceInfo | undefined;
  private readonly timers = new Map<TimerName, { handle: NodeJS.Timeout; at: number }>();
  private outbox: Promise<void> = Promise.resolve();
  private writes: Promise<void> = Promise.resolve();
  private readonly clock: () => number;
  private readonly log: EngineLogger;
  private clientIdHex = "";

  constructor(private readonly opts: DhcpV4ClientOptions) {
    super();
    if (opts.requestedAddress !== undefined && !isIpv4(opts.requestedAddress)) throw new Error("requestedAddress must be an IPv4 address");
    checkText("hostname", opts.hostname, 255);
    checkText("vendorClass", opts.vendorClass, 255);
    this.clock = opts.clock ?? Date.now;
    this.log = opts.logger.child({ interface: opts.interface });
    this.state = initialState(opts.requestedAddress);
  }

  async start(): Promise<void> {
    if (this.transport) throw new Error("client already started");
    const info = await readInterfaceInfo(this.opts.interface);
    const clientId = clientIdFrom(this.opts.clientId, info.mac);
    this.info = info;
    this.clientIdHex = toHex(clientId);
    this.cfg = this.buildConfig(info, clientId);
    this.store = new LeaseStore(this.opts.stateDir, { interface: info.name, mac: formatMac(info.mac), clientId: toHex(clientId) });
    this.prober = this.opts.prober ?? createArpingProber({ ifname: info.name, onNote: (note) => this.log.warn({ note }, "address probe") });
    const loaded = this.store.load();
    if (!loaded.lease) this.log.debug({ reason: loaded.reason }, "starting without a stored lease");
    this.transport = await openUdpTransport({
      ifindex: info.ifindex,
      onMessage: (data) => this.onPacket(data),
      onError: (err) => this.log.error({ err: err.message }, "socket error"),
    });
    this.log.info({ ifindex: info.ifindex, mac: formatMac(info.mac), storedLease: loaded.lease?.address ?? null }, "dhcpv4 client started");
    this.dispatch({ type: "start", now: this.clock(), storedLease: loaded.lease });
  }

  /** Stops the client; sends DHCPRELEASE first unless `release` (default: options.releaseOnStop) is false. */
  async stop(opts: { release?: boolean } = {}): Promise<void> {
    if (!this.transport) return;
    const release = opts.release ?? this.opts.releaseOnStop ?? true;
    await this.dispatch({ type: "stop", now: this.clock(), release });
    for (const name of TIMER_NAMES) this.clearTimer(name);
    await this.writes;
    const transport = this.transport;
    this.transport = undefined;
    await transport.close();
    this.log.info({ released: release }, "dhcpv4 client stopped");
  }

  /** Renews now (bound), retries now (renewing/rebinding), or starts discovery (idle after release). */
  renew(): void {
    if (this.cfg) void this.dispatch({ type: "renew", now: this.clock() });
  }

  /** Releases the lease and stays idle until renew(). */
  async release(): Promise<void> {
    if (this.cfg) await this.dispatch({ type: "release", now: this.clock() });
  }

  getLease(): DhcpLease | null {
    return HOLDS_LEASE.includes(this.state.phase) ? this.state.lease : null;
  }

  getPhase(): Phase {
    return this.state.phase;
  }

  getInterface(): InterfaceInfo | undefined {
    return this.info;
  }

  /** Option 61 as sent, colon hex; "" before start(). */
  getClientId(): string {
    return this.clientIdHex;
  }

  snapshot(): ClientSnapshot {
    return { phase: this.state.phase, lease: this.state.lease };
  }

  private buildConfig(info: InterfaceInfo, clientId: Uint8Array): FsmConfig {
    const o = this.opts;
    const cfg: FsmConfig = {
      mac: info.mac,
      clientId,
      parameterRequestList: o.parameterRequestList ?? [...DEFAULT_PARAMETER_REQUEST_LIST],
      // IP + UDP headers are 28 bytes; 576 is the floor every host must accept.
      maxMessageSize: Math.max(576, Math.min(info.mtu ?? 1500, 65535) - 28),
      retransmit: { ...DEFAULT_TIMING.retransmit, ...o.retransmit },
      requestAttempts: o.requestAttempts ?? DEFAULT_TIMING.requestAttempts,
      rebootAttempts: o.rebootAttempts ?? DEFAULT_TIMING.rebootAttempts,
      renewRetransmitMinMs: o.renewRetransmitMinMs ?? DEFAULT_TIMING.renewRetransmitMinMs,
      declineWaitMs: o.declineWaitMs ?? DEFAULT_TIMING.declineWaitMs,
      arpCheck: o.arpCheck ?? false,
      rng: o.rng ?? Math.random,
    };
    if (o.hostname) cfg.hostname = o.hostname;
    if (o.vendorClass) cfg.vendorClass = o.vendorClass;
    if (o.requestedAddress) cfg.requestedAddress = o.requestedAddress;
    return cfg;
  }

  private onPacket(data: Buffer): void {
    const decoded = decodeMessage(data);
    if (!decoded.ok) {
      this.log.debug({ error: decoded.error, bytes: data.length }, "dropped malformed packet");
      return;
    }
    this.log.debug({ type: messageTypeName(messageTypeOf(decoded.message)), xid: decoded.message.xid }, "received");
    void this.dispatch({ type: "packet", now: this.clock(), message: decoded.message });
  }

  /** Runs one state-machine step and carries out its actions; resolves when its sends and events are done. */
  private dispatch(event: FsmEvent): Promise<void> {
    const cfg = this.cfg;
    if (!cfg) return Promise.resolve();
    const before = this.state;
    const { state, actions } = step(this.state, event, cfg);
    this.state = state;
    if (state.phase !== before.phase) this.log.debug({ from: before.phase, to: state.phase, on: event.type }, "state");
    this.syncTimers();
    // Sends first, then the new state, then the events: whoever hears an event already sees its state.
    const events: LeaseEvent[] = [];
    for (const action of actions) {
      if (action.type === "emit") events.push(action.event);
      else this.apply(action);
    }
    if (state.phase !== before.phase || state.lease !== before.lease) this.notify({ phase: state.phase, lease: state.lease });
    for (const ev of events) this.report(ev);
    return this.outbox;
  }

  private apply(action: Action): void {
    switch (action.type) {
      case "send":
        return this.send(action.what, encodeMessage(action.message), action.to, action.message.xid);
      case "emit":
        return this.report(action.event);
      case "persist":
        return this.persist(action.lease);
      case "probe":
        return this.probe(action.address);
      case "ignored":
        this.log.debug({ reason: action.reason }, "ignored");
        return;
    }
  }

  private send(what: string, data: Buffer, to: string, xid: number): void {
    const transport = this.transport;
    if (!transport) return;
    this.log.debug({ what, to, xid }, "send");
    this.outbox = this.outbox.then(() =>
      transport.send(data, to).catch((err: Error) => this.log.warn({ what, to, err: err.message }, "send failed")),
    );
  }

  /**
   * Events go out after the sends queued before them: whoever removes the address on "released" must
   * not do so before the RELEASE (sent from that address) has left.
   */
  private report(ev: LeaseEvent): void {
    this.outbox = this.outbox.then(() => {
      this.logEvent(ev);
      try {
        this.emit("event", ev);
      } catch (err) {
        this.log.error({ err: (err as Error).message, event: ev.type }, "event listener failed");
      }
    });
  }

  /** Like events: a status view must not show the lease gone before the RELEASE sent from it has left. */
  private notify(snapshot: ClientSnapshot): void {
    this.outbox = this.outbox.then(() => {
      try {
        this.emit("state", snapshot);
      } catch (err) {
        this.log.error({ err: (err as Error).message }, "state listener failed");
      }
    });
  }

  /** Lease file writes run in order on their own chain, so they never hold up a send or an event. */
  private persist(lease: DhcpLease | null): void {
    const store = this.store;
    if (!store) return;
    this.writes = this.writes
      .then(() => (lease ? store.save(lease) : store.clear()))
      .catch((err: Error) => this.log.error({ err: err.message }, "cannot write the lease file"));
  }

  private probe(address: string): void {
    const prober = this.prober;
    if (!prober) return;
    void prober.probe(address).then((result) => {
      if (result === "unknown") this.log.warn({ address }, "address probe inconclusive, using the address");
      if (this.transport) void this.dispatch({ type: "probe-result", now: this.clock(), address, inUse: result === "in-use" });
    });
  }

  private logEvent(ev: LeaseEvent): void {
    const l = ev.lease;
    this.log.info(
      { event: ev.type, address: l?.address ?? ev.address, server: l?.serverId ?? ev.serverId, leaseTime: l?.leaseTime, reason: ev.reason },
      "lease event",
    );
  }

  private syncTimers(): void {
    for (const name of TIMER_NAMES) {
      const want = this.state.deadlines[name];
      const have = this.timers.get(name);
      if (have && have.at === want) continue;
      this.clearTimer(name);
      if (want !== undefined) this.armTimer(name, want);
    }
  }

  private armTimer(name: TimerName, at: number): void {
    const delay = Math.min(Math.max(0, at - this.clock()), MAX_TIMEOUT_MS);
    this.timers.set(name, { handle: setTimeout(() => this.fire(name), delay), at });
  }

  private clearTimer(name: TimerName): void {
    const t = this.timers.get(name);
    if (t) clearTimeout(t.handle);
    this.timers.delete(name);
  }

  private fire(name: TimerName): void {
    const t = this.timers.get(name);
    if (!t) return;
    this.timers.delete(name);
    // Timers are monotonic but deadlines are wall-clock: re-arm when we woke a little early or the
    // deadline lies beyond setTimeout's range.
    if (this.clock() < t.at) return this.armTimer(name, t.at);
    void this.dispatch({ type: "timer", now: this.clock(), timer: name });
  }
}
