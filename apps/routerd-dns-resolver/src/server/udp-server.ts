// One UDP listening socket. Each datagram goes to the resolver; clients outside the listener's sources get
// REFUSED. Answers larger than the client's EDNS size (or 512 without EDNS) come back truncated with TC.
// The socket is the native batch helper's when it loads (Linux), node:dgram's otherwise; `transport` and
// `transportNote` say which and why, for the status.
import type { SourceFilter } from "../config/cidr.js";
import type { ClientInfo, Reply, Resolver } from "../resolver/resolver.js";
import { DgramTransport } from "./dgram-transport.js";
import { loadUdpBatch } from "./native/addon.js";
import { errnoName, NativeTransport } from "./native-transport.js";
import type { UdpTransport, UdpTransportKind } from "./udp-transport.js";

export interface UdpServerHooks {
  /** A kernel error on a native socket (already rate-limited: at most one per kind and minute). */
  onSocketError?(message: string): void;
}

const ERROR_REPORT_MS = 60_000;

export class UdpServer {
  private socket: UdpTransport | undefined;
  private readonly lastReport = new Map<string, number>();

  constructor(
    readonly address: string,
    readonly port: number,
    private readonly resolver: () => Resolver,
    public filter: SourceFilter,
    private readonly hooks: UdpServerHooks = {},
  ) {}

  /** Which socket serves (after start), and why node:dgram when it is not the native helper. */
  transport: UdpTransportKind | undefined;
  transportNote = "";

  async start(): Promise<void> {
    const deliver = (msg: Buffer, client: ClientInfo, reply: Reply): void => this.onMessage(msg, client, reply);
    const choice = loadUdpBatch();
    if (choice.addon !== undefined) {
      this.socket = new NativeTransport(choice.addon, this.address, this.port, deliver, {
        onError: (what, errno) => this.report(`${what} ${errnoName(errno)}`),
        onOversized: () => this.resolver().stats.dropped++,
        onBatch: () => this.resolver().stats.udpBatches++,
      });
      this.transportNote = "recvmmsg/sendmmsg";
    } else {
      this.socket = await DgramTransport.start(this.address, this.port, deliver);
      this.transportNote = choice.reason;
    }
    this.transport = this.socket.kind;
  }

  private report(what: string): void {
    const now = Date.now();
    if (now - (this.lastReport.get(what) ?? -Infinity) < ERROR_REPORT_MS) return;
    this.lastReport.set(what, now);
    this.hooks.onSocketError?.(`UDP ${this.address}:${this.boundPort()}: ${what}`);
  }

  private onMessage(msg: Buffer, client: ClientInfo, reply: Reply): void {
    const resolver = this.resolver();
    resolver.stats.udpQueries++;
    if (!this.filter.allows(client.address)) {
      resolver.refuse(msg, client, reply);
      return;
    }
    resolver.handle(msg, client, reply);
  }

  /** The bound port (tests bind port 0). */
  boundPort(): number {
    return this.socket?.port ?? this.port;
  }

  close(): void {
    this.socket?.close();
    this.socket = undefined;
  }
}
