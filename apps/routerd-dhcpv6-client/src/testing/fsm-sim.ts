// Test support: drives the pure state machine on a virtual clock and builds server messages.
import { initialState, step } from "../client-fsm.js";
import type { Dhcp6Message } from "../codec.js";
import { decodeMessage, encodeMessage } from "../codec.js";
import { MessageType, StatusCode } from "../constants.js";
import type { ClientEvent } from "../events.js";
import type { FsmAction, FsmConfig, FsmEvent, FsmState, PrefixHint, TimerName } from "../fsm-types.js";
import { findOption, findOptions, type Dhcp6Option } from "../options.js";
import { seededRandom } from "../random.js";
import type { ExchangeKind } from "../retransmit.js";

export const CLIENT_DUID = Uint8Array.from([0, 3, 0, 1, 2, 0, 0, 0, 0, 1]);
export const SERVER_A = Uint8Array.from([0, 1, 0, 1, 0xaa, 0xaa, 0xaa, 0xaa, 2, 0, 0, 0, 0, 0xa]);
export const SERVER_B = Uint8Array.from([0, 1, 0, 1, 0xbb, 0xbb, 0xbb, 0xbb, 2, 0, 0, 0, 0, 0xb]);
export const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);

export function config(over: Partial<FsmConfig> = {}): FsmConfig {
  return {
    clientDuid: CLIENT_DUID,
    mode: "stateful",
    pd: { iaid: 1, prefixLength: 56 },
    rapidCommit: false,
    solicitMaxDelayMs: 0,
    requestedOptions: [],
    ...over,
  };
}

export interface Sent {
  at: number;
  exchange: ExchangeKind;
  attempt: number;
  message: Dhcp6Message;
}

/** The state machine on a virtual clock: timers fire in order as time is advanced. */
export class Sim {
  state: FsmState;
  now = T0;
  readonly sent: Sent[] = [];
  readonly events: ClientEvent[] = [];
  readonly logs: Array<{ level: string; msg: string; fields: Record<string, unknown> }> = [];
  readonly persisted: Array<{ lease: unknown; lastPrefix: PrefixHint | undefined }> = [];
  readonly timers = new Map<TimerName, number>();
  stopped = false;
  private readonly rng;

  constructor(
    readonly cfg: FsmConfig = config(),
    seed = 1,
    restored: { lastPrefix?: PrefixHint } = {},
  ) {
    this.rng = seededRandom(seed);
    this.state = initialState(restored);
  }

  dispatch(event: FsmEvent): void {
    const r = step(this.state, event, { config: this.cfg, rng: this.rng });
    this.state = r.state;
    for (const a of r.actions) this.apply(a);
  }

  private apply(a: FsmAction): void {
    switch (a.type) {
      case "send": {
        // Round-trip through the codec so what the tests inspect is what goes on the wire.
        const decoded = decodeMessage(encodeMessage(a.message));
        if (!decoded.ok) throw new Error(`client built an undecodable message: ${decoded.error}`);
        this.sent.push({ at: this.now, exchange: a.exchange, attempt: a.attempt, message: decoded.message });
        return;
      }
      case "set-timer":
        this.timers.set(a.name, a.at);
        return;
      case "cancel-timer":
        this.timers.delete(a.name);
        return;
      case "emit":
        this.events.push(a.event);
        return;
      case "persist":
        this.persisted.push({ lease: a.lease, lastPrefix: a.lastPrefix });
        return;
      case "log":
        this.logs.push({ level: a.level, msg: a.msg, fields: a.fields });
        return;
      case "stopped":
        this.stopped = true;
        return;
    }
  }

  start(): this {
    this.dispatch({ type: "start", now: this.now });
    return this;
  }

  /** Advances virtual time to `until`, firing due timers (earliest first). */
  advanceTo(until: number): void {
    for (;;) {
      let next: [TimerName, number] | undefined;
      for (const [name, at] of this.timers) if (at <= until && (!next || at < next[1])) next = [name, at];
      if (!next) break;
      this.timers.delete(next[0]);
      this.now = Math.max(this.now, next[1]);
      this.dispatch({ type: "timer", name: next[0], now: this.now });
    }
    this.now = Math.max(this.now, until);
  }

  advance(ms: number): void {
    this.advanceTo(this.now + ms);
  }

  /** Fires the next pending timer. */
  fireNext(): TimerName {
    let next: [TimerName, number] | undefined;
    for (const [name, at] of this.timers) if (!next || at < next[1]) next = [name, at];
    if (!next) throw new Error("no timer pending");
    this.advanceTo(next[1]);
    return next[0];
  }

  deliver(message: Dhcp6Message, from = "fe80::1%wan0"): void {
    this.dispatch({ type: "packet", now: this.now, message, from });
  }

  last(): Sent {
    const s = this.sent.at(-1);
    if (!s) throw new Error("nothing sent");
    return s;
  }

  sentOf(exchange: ExchangeKind): Sent[] {
    return this.sent.filter((s) => s.exchange === exchange);
  }

  eventTypes(): string[] {
    return this.events.map((e) => e.type);
  }
}

export interface PrefixSpec {
  prefix: string;
  length?: number;
  preferred?: number;
  valid?: number;
}

export function iaPd(prefixes: PrefixSpec[], opts: { iaid?: number; t1?: number; t2?: number; status?: number } = {}): Dhcp6Option {
  const options: Dhcp6Option[] = prefixes.map((p) => ({
    kind: "ia-prefix",
    preferred: p.preferred ?? 300,
    valid: p.valid ?? 600,
    prefixLength: p.length ?? 56,
    prefix: p.prefix,
    options: [],
  }));
  if (opts.status !== undefined) options.push({ kind: "status-code", status: opts.status, message: "test" });
  return { kind: "ia-pd", iaid: opts.iaid ?? 1, t1: opts.t1 ?? 100, t2: opts.t2 ?? 200, options };
}

export interface ServerMessage {
  type?: number;
  xid?: number;
  serverId?: Uint8Array;
  clientId?: Uint8Array | null;
  ias?: Dhcp6Option[];
  extra?: Dhcp6Option[];
}

/** A server message answering the client's last transmission (its xid and client id unless overridden). */
export function answer(to: Sent, m: ServerMessage = {}): Dhcp6Message {
  const options: Dhcp6Option[] = [];
  const clientId = m.clientId === undefined ? findOption(to.message.options, "client-id")?.duid : m.clientId;
  if (clientId) options.push({ kind: "client-id", duid: clientId });
  options.push({ kind: "server-id", duid: m.serverId ?? SERVER_A });
  options.push(...(m.ias ?? []), ...(m.extra ?? []));
  return { type: m.type ?? MessageType.REPLY, xid: m.xid ?? to.message.xid, options };
}

export function advertise(to: Sent, m: ServerMessage & { preference?: number } = {}): Dhcp6Message {
  const extra = [...(m.extra ?? [])];
  if (m.preference !== undefined) extra.push({ kind: "preference", value: m.preference });
  return answer(to, { ...m, type: MessageType.ADVERTISE, extra });
}

export function status(code: number, message = ""): Dhcp6Option {
  return { kind: "status-code", status: code, message };
}

export const ok = StatusCode.Success;

export function prefixesIn(m: Dhcp6Message): string[] {
  return findOptions(m.options, "ia-pd").flatMap((ia) => findOptions(ia.options, "ia-prefix").map((p) => `${p.prefix}/${p.prefixLength}`));
}

/** Brings a fresh client to "bound" with one prefix from SERVER_A via Solicit/Advertise/Request/Reply. */
export function boundSim(opts: { cfg?: FsmConfig; prefix?: PrefixSpec; t1?: number; t2?: number; seed?: number } = {}): Sim {
  const sim = new Sim(opts.cfg ?? config(), opts.seed ?? 7).start();
  const prefix = opts.prefix ?? { prefix: "2001:db8:1000::" };
  const t = { t1: opts.t1 ?? 100, t2: opts.t2 ?? 200 };
  sim.deliver(advertise(sim.last(), { ias: [iaPd([prefix], t)], preference: 255 }));
  sim.deliver(answer(sim.last(), { ias: [iaPd([prefix], t)] }));
  if (sim.state.phase !== "bound") throw new Error(`boundSim: phase ${sim.state.phase}`);
  return sim;
}
