// DhcpV6Client: runs the pure state machine for one interface with real time, a UDP transport and the
// state dir. Independent of any CLI or RPC layer so the daemon kit can wrap it later.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import pino, { type Logger } from "pino";
import { FileLock } from "@routerd/resource";
import { initialState, step } from "./client-fsm.js";
import { decodeMessage, encodeMessage } from "./codec.js";
import { messageTypeName } from "./constants.js";
import { buildDuid, duidTypeOf, type DuidType } from "./duid.js";
import type { ClientEvent } from "./events.js";
import type { FsmAction, FsmConfig, FsmEvent, FsmState, Phase, PrefixHint, TimerName } from "./fsm-types.js";
import { readMac } from "./interface-info.js";
import type { DelegatedPrefix, Information, Lease, LeasedAddress } from "./lease.js";
import { cryptoRandom, type RandomSource } from "./random.js";
import { loadDuid, loadLease, saveDuid, saveLease } from "./state-store.js";
import { udpTransport, type Transport, type TransportFactory } from "./transport.js";
import { toHex } from "./wire.js";

export interface DhcpV6ClientOptions {
  interface: string;
  stateDir: string;
  /** Stateless mode: Information-request only, no leases. */
  informationOnly?: boolean;
  /** Ask for a delegated prefix (default true unless informationOnly). */
  prefixDelegation?: boolean;
  prefixLength?: number;
  /** Explicit prefix hint; otherwise the last delegated prefix is asked for again. */
  hint?: PrefixHint;
  /** Also ask for an address (IA_NA). */
  requestAddress?: boolean;
  /** Send RELEASE on stop() (default true). */
  releaseOnStop?: boolean;
  /** How long stop() waits for the Release exchange (default 5000 ms). */
  releaseTimeoutMs?: number;
  duidType?: DuidType;
  enterpriseNumber?: number;
  rapidCommit?: boolean;
  /** Random delay before the first Solicit, 0..N ms (default 0; see README for why). */
  solicitMaxDelayMs?: number;
  iaid?: number;
  requestedOptions?: number[];
  logger?: Logger;
  onEvent?: (event: ClientEvent) => void;
  /** Called after every change of phase (also the ones no event reports, such as solicit → request). */
  onPhaseChange?: (phase: Phase, previous: Phase) => void;
  clock?: () => number;
  random?: RandomSource;
  transport?: TransportFactory;
}

const LOCK_FILE = "lock";
/** setTimeout's limit; longer waits are re-armed in steps. */
const MAX_TIMEOUT_MS = 2_147_483_647;

export class DhcpV6Client {
  private state: FsmState = initialState();
  private config: FsmConfig | undefined;
  private transport: Transport | undefined;
  private lock: FileLock | undefined;
  private readonly timers = new Map<TimerName, NodeJS.Timeout>();
  private waiters: Array<{ until: (p: Phase) => boolean; resolve: () => void }> = [];
  private readonly clock: () => number;
  private readonly rng: RandomSource;
  private readonly log: Logger;
  private started = false;
  private duidText = "";

  constructor(private readonly opts: DhcpV6ClientOptions) {
    this.clock = opts.clock ?? Date.now;
    this.rng = opts.random ?? cryptoRandom;
    this.log = (opts.logger ?? pino({ level: "silent" })).child({ interface: opts.interface });
  }

  get phase(): Phase {
    return this.currentPhase();
  }
  private currentPhase(): Phase {
    return this.state.phase;
  }
  get lease(): Lease | undefined {
    return this.state.lease;
  }
  get prefixes(): DelegatedPrefix[] {
    return this.state.lease?.prefixes ?? [];
  }
  get addresses(): LeasedAddress[] {
    return this.state.lease?.addresses ?? [];
  }
  get information(): Information | undefined {
    return this.state.information;
  }
  get duid(): string {
    return this.duidText;
  }
  get localAddress(): string | undefined {
    return this.transport?.localAddress;
  }

  /** Loads state, takes the state-dir lock and starts acquiring once the interface's socket is bound. */
  async start(): Promise<void> {
    if (this.started) throw new Error("DhcpV6Client already started");
    this.started = true;
    const o = this.opts;
    mkdirSync(o.stateDir, { recursive: true });
    this.lock = FileLock.acquire(join(o.stateDir, LOCK_FILE), 0);
    const duid = this.loadOrCreateDuid();
    this.duidText = toHex(duid, ":");
    const stored = loadLease(o.stateDir);
    if (stored.error) this.log.warn({ error: stored.error }, "ignoring unusable lease file");
    const lastPrefix = stored.lastPrefix ?? (stored.lease?.prefixes[0] && { prefix: stored.lease.prefixes[0].prefix, length: stored.lease.prefixes[0].length });
    this.state = initialState({ ...(lastPrefix ? { lastPrefix } : {}), ...(stored.lease ? { lease: stored.lease } : {}) });
    const iaid = o.iaid ?? 1;
    const stateless = o.informationOnly === true;
    this.config = {
      clientDuid: duid,
      mode: stateless ? "information-only" : "stateful",
      rapidCommit: o.rapidCommit ?? true,
      solicitMaxDelayMs: o.solicitMaxDelayMs ?? 0,
      requestedOptions: o.requestedOptions ?? [],
    };
    if (!stateless && o.prefixDelegation !== false) {
      this.config.pd = { iaid };
      if (o.prefixLength !== undefined) this.config.pd.prefixLength = o.prefixLength;
      if (o.hint) this.config.pd.hint = o.hint;
    }
    if (!stateless && o.requestAddress) this.config.na = { iaid };
    this.log.info({ duid: this.duidText, mode: this.config.mode, lastPrefix, pd: this.config.pd, na: this.config.na }, "starting");
    this.transport = (o.transport ?? udpTransport)(
      o.interface,
      {
        onMessage: (data, from) => this.onMessage(data, from),
        onReady: () => this.dispatch({ type: this.state.phase === "init" ? "start" : "link-change", now: this.clock() }),
      },
      this.log,
    );
    this.transport.open();
  }

  /** Stops the client; with release (default from options) the leases are given back first. */
  async stop(opts: { release?: boolean; timeoutMs?: number } = {}): Promise<void> {
    if (!this.started) return;
    const release = opts.release ?? this.opts.releaseOnStop ?? true;
    if (this.state.phase !== "stopped") {
      const event: FsmEvent = release ? { type: "release", now: this.clock(), then: "stop" } : { type: "stop", now: this.clock() };
      await this.dispatchAndWait(event, (p) => p === "stopped", opts.timeoutMs ?? this.opts.releaseTimeoutMs ?? 5000);
      // The Release exchange may still be retransmitting after the timeout: stop it anyway.
      if (this.currentPhase() !== "stopped") this.dispatch({ type: "stop", now: this.clock() });
    }
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    await this.transport?.close();
    this.lock?.release();
    this.log.info({}, "stopped");
  }

  /** Renews now when bound; restarts acquisition when not. */
  renew(): void {
    this.dispatch({ type: "renew", now: this.clock() });
  }

  /** Gives the leases back and stays idle until renew(). */
  async release(timeoutMs = this.opts.releaseTimeoutMs ?? 5000): Promise<void> {
    const event: FsmEvent = { type: "release", now: this.clock(), then: "idle" };
    await this.dispatchAndWait(event, (p) => p === "idle" || p === "stopped", timeoutMs);
  }

  /** Dispatches and resolves once the phase satisfies `until`, or after timeoutMs. */
  private async dispatchAndWait(event: FsmEvent, until: (p: Phase) => boolean, timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const reached = new Promise<void>((resolve) => this.waiters.push({ until, resolve }));
    this.dispatch(event);
    await Promise.race([reached, new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
  }

  private loadOrCreateDuid(): Uint8Array {
    const o = this.opts;
    const loaded = loadDuid(o.stateDir);
    if (loaded.error) this.log.warn({ error: loaded.error }, "replacing unusable DUID file");
    if (loaded.duid) {
      const type = duidTypeOf(loaded.duid);
      if (o.duidType && type !== o.duidType) this.log.warn({ stored: type, requested: o.duidType }, "keeping the stored DUID; delete it to change type");
      return loaded.duid;
    }
    const built = buildDuid(o.duidType ?? "ll", {
      mac: readMac(o.interface),
      nowMs: this.clock(),
      enterpriseNumber: o.enterpriseNumber,
      identifier: Uint8Array.from(randomBytes(12)),
    });
    if (built.fallbackReason) this.log.warn({ reason: built.fallbackReason }, "using DUID-EN instead");
    saveDuid(o.stateDir, built.duid);
    return built.duid;
  }

  private onMessage(data: Uint8Array, from: string): void {
    const decoded = decodeMessage(data);
    if (!decoded.ok) {
      this.log.debug({ from, error: decoded.error, bytes: data.length }, "dropped malformed message");
      return;
    }
    this.dispatch({ type: "packet", now: this.clock(), message: decoded.message, from });
  }

  private dispatch(event: FsmEvent): void {
    if (!this.config) return;
    const previous = this.state.phase;
    const { state, actions } = step(this.state, event, { config: this.config, rng: this.rng });
    this.state = state;
    for (const a of actions) this.run(a);
    if (state.phase !== previous) {
      try {
        this.opts.onPhaseChange?.(state.phase, previous);
      } catch (err) {
        this.log.error({ err }, "phase handler failed");
      }
    }
    const ready = this.waiters.filter((w) => w.until(state.phase));
    this.waiters = this.waiters.filter((w) => !w.until(state.phase));
    ready.forEach((w) => w.resolve());
  }

  private run(a: FsmAction): void {
    switch (a.type) {
      case "send": {
        const bytes = encodeMessage(a.message);
        void this.transport?.send(bytes).then((ok) => {
          if (!ok) this.log.debug({ message: messageTypeName(a.message.type) }, "not sent (socket not ready)");
        });
        return;
      }
      case "set-timer":
        return this.arm(a.name, a.at);
      case "cancel-timer":
        clearTimeout(this.timers.get(a.name));
        this.timers.delete(a.name);
        return;
      case "emit":
        try {
          this.opts.onEvent?.(a.event);
        } catch (err) {
          this.log.error({ err, event: a.event.type }, "event handler failed");
        }
        return;
      case "persist":
        try {
          saveLease(this.opts.stateDir, a.lease, a.lastPrefix);
        } catch (err) {
          this.log.error({ err }, "cannot persist lease");
        }
        return;
      case "log":
        this.log[a.level](a.fields, a.msg);
        return;
      case "stopped":
        for (const t of this.timers.values()) clearTimeout(t);
        this.timers.clear();
        return;
    }
  }

  private arm(name: TimerName, at: number): void {
    clearTimeout(this.timers.get(name));
    const delay = Math.max(0, at - this.clock());
    const fire = delay > MAX_TIMEOUT_MS ? () => this.arm(name, at) : () => {
      this.timers.delete(name);
      this.dispatch({ type: "timer", name, now: this.clock() });
    };
    this.timers.set(name, setTimeout(fire, Math.min(delay, MAX_TIMEOUT_MS)));
  }
}
