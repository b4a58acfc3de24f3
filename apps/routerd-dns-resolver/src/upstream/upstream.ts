// One configured upstream: its transport (UDP with TCP fallback on truncation, TCP, DoT, DoH), its health,
// and the question/answer checks. Reports health transitions through a callback.
import { isIP } from "node:net";
import type { Socket } from "node:dgram";
import type { UpstreamConfig } from "../config/config.js";
import { RCODE, TYPE } from "../wire/constants.js";
import type { Message } from "../wire/message.js";
import type { Name } from "../wire/name.js";
import { ipv6Bytes, ipv6Text } from "../zones/record-text.js";
import { resolveBootstrap } from "./bootstrap.js";
import { DohTransport } from "./doh.js";
import { UpstreamHealth, type HealthTransition, type Thresholds } from "./health.js";
import { acceptResponse, encodeUpstreamQuery, isTruncated, upstreamQuestion, type UpstreamQuestion } from "./question.js";
import { StreamTransport } from "./stream.js";
import { UpstreamError, type Transport } from "./transport.js";
import { UdpTransport } from "./udp.js";

export interface UpstreamHooks {
  onTransition(upstream: Upstream, t: HealthTransition): void;
  /** Binds a UDP socket to sourceInterface (SO_BINDTOIFINDEX). */
  prepareUdp?: (socket: Socket, ifname: string) => void;
  onMismatch?: () => void;
  now?: () => number;
}

/** IPv6 addresses compared as the kernel reports them (rinfo.address). */
function canonicalAddress(a: string): string {
  return isIP(a) === 6 ? ipv6Text(ipv6Bytes(a)) : a;
}

export class Upstream {
  readonly health: UpstreamHealth;
  private transport: Transport;
  private tcp: StreamTransport | undefined;
  private readonly now: () => number;

  constructor(
    readonly config: UpstreamConfig,
    thresholds: Thresholds,
    private readonly hooks: UpstreamHooks,
  ) {
    this.now = hooks.now ?? Date.now;
    this.health = new UpstreamHealth(thresholds, this.now());
    this.transport = this.makeTransport();
  }

  get name(): string {
    return this.config.name;
  }

  /** Where it is, as shown in status (DNSUpstream's provides: address, url). */
  get url(): string {
    const c = this.config;
    const host = c.address.includes(":") ? `[${c.address}]` : c.address;
    if (c.protocol === "doh") return `https://${c.tlsName ?? host}:${c.port}${c.path}`;
    return `${c.protocol === "dot" ? "tls" : c.protocol}://${host}:${c.port}`;
  }

  private makeTransport(): Transport {
    const c = this.config;
    const address = canonicalAddress(c.address);
    switch (c.protocol) {
      case "udp":
        return new UdpTransport({
          address,
          port: c.port,
          ...(c.sourceInterface !== undefined && this.hooks.prepareUdp ? { prepare: (s: Socket) => this.hooks.prepareUdp!(s, c.sourceInterface!) } : {}),
          ...(this.hooks.onMismatch ? { onMismatch: this.hooks.onMismatch } : {}),
        });
      case "tcp":
        return new StreamTransport({ address, port: c.port });
      case "dot":
        return new StreamTransport({ address, port: c.port, ...(c.tlsName !== undefined ? { tlsName: c.tlsName } : {}), idleMs: 30_000 });
      case "doh":
        return new DohTransport({
          address: c.address,
          port: c.port,
          path: c.path,
          ...(c.tlsName !== undefined ? { tlsName: c.tlsName } : {}),
          resolve: () => (isIP(c.address) !== 0 ? Promise.resolve(c.address) : resolveBootstrap(c.address, c.bootstrap)),
        });
    }
  }

  private tcpFallback(): StreamTransport {
    this.tcp ??= new StreamTransport({ address: canonicalAddress(this.config.address), port: this.config.port });
    return this.tcp;
  }

  /**
   * Asks the question; resolves with the checked reply (any rcode), rejects with UpstreamError. SERVFAIL and
   * REFUSED count against its health, except for a probe, where any answer shows it is alive.
   */
  async query(q: UpstreamQuestion, timeoutMs: number, probe = false): Promise<Message> {
    const started = this.now();
    this.health.sent();
    try {
      const wire = encodeUpstreamQuery(q, 0);
      let msg = await this.transport.exchange(wire, (reply) => acceptResponse(reply, wire.readUInt16BE(0), q), timeoutMs);
      if (isTruncated(msg) && this.config.protocol === "udp") {
        const again = encodeUpstreamQuery(q, 0);
        msg = await this.tcpFallback().exchange(again, (reply) => acceptResponse(reply, again.readUInt16BE(0), q), Math.max(1, timeoutMs - (this.now() - started)));
      }
      if (!probe && (msg.rcode === RCODE.SERVFAIL || msg.rcode === RCODE.REFUSED)) this.report(this.health.failure("rcode", `answered ${msg.rcode === RCODE.SERVFAIL ? "SERVFAIL" : "REFUSED"}`, this.now()));
      else this.report(this.health.success(this.now() - started, this.now()));
      return msg;
    } catch (err) {
      const e = err instanceof UpstreamError ? err : new UpstreamError("network", (err as Error).message);
      this.report(this.health.failure(e.reason, e.message, this.now()));
      throw e;
    }
  }

  /** The health probe: the SOA of a name it serves (the root's NS for the root); any answer will do. */
  async probe(name: Name, timeoutMs: number): Promise<void> {
    const type = name.length === 1 ? TYPE.NS : TYPE.SOA;
    await this.query(upstreamQuestion(name, type, { dnssecOk: false, checkingDisabled: false }), timeoutMs, true).catch(() => undefined);
  }

  private report(t: HealthTransition | undefined): void {
    if (t !== undefined) this.hooks.onTransition(this, t);
  }

  close(): void {
    this.transport.close();
    this.tcp?.close();
  }
}
