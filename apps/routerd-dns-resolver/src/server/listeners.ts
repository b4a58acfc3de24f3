// Every listen address gets a UDP and a TCP socket. A reload keeps the sockets of addresses that stay
// (only their source filter changes), opens new ones and closes removed ones. An address that cannot be
// bound yet (not on the host, port taken) is retried until it can, and reported meanwhile.
import type { ListenConfig } from "../config/config.js";
import { SourceFilter } from "../config/cidr.js";
import type { Resolver } from "../resolver/resolver.js";
import { TcpServer, DEFAULT_TCP_LIMITS, type TcpLimits } from "./tcp-server.js";
import { UdpServer, type UdpServerHooks } from "./udp-server.js";
import type { UdpTransportKind } from "./udp-transport.js";

export interface ListenerState {
  listener: string;
  address: string;
  port: number;
  bound: boolean;
  error?: string;
  /** The UDP socket's kind once bound, and why node:dgram when it is not the native helper. */
  udpTransport?: UdpTransportKind;
  udpTransportNote?: string;
}

interface Bound {
  listener: string;
  address: string;
  port: number;
  udp: UdpServer;
  tcp: TcpServer;
  bound: boolean;
  error?: string;
}

const RETRY_MS = 2000;

export class Listeners {
  private readonly sockets = new Map<string, Bound>();
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly resolver: () => Resolver,
    private readonly onChange: (states: ListenerState[]) => void = () => undefined,
    private readonly tcpLimits: TcpLimits = DEFAULT_TCP_LIMITS,
    private readonly udpHooks: UdpServerHooks = {},
  ) {}

  async apply(listen: readonly ListenConfig[]): Promise<ListenerState[]> {
    const wanted = new Map<string, { listener: string; address: string; port: number; filter: SourceFilter }>();
    for (const l of listen) {
      const filter = new SourceFilter(l.sources);
      for (const address of l.addresses) wanted.set(`${address}|${l.port}`, { listener: l.name, address, port: l.port, filter });
    }
    for (const [key, b] of this.sockets) {
      if (wanted.has(key)) continue;
      b.udp.close();
      b.tcp.close();
      this.sockets.delete(key);
    }
    for (const [key, w] of wanted) {
      const existing = this.sockets.get(key);
      if (existing !== undefined) {
        existing.udp.filter = w.filter;
        existing.tcp.filter = w.filter;
        existing.listener = w.listener;
        continue;
      }
      this.sockets.set(key, {
        ...w,
        udp: new UdpServer(w.address, w.port, this.resolver, w.filter, this.udpHooks),
        tcp: new TcpServer(w.address, w.port, this.resolver, w.filter, this.tcpLimits),
        bound: false,
      });
    }
    await this.bindPending();
    return this.states();
  }

  private async bindPending(): Promise<void> {
    clearTimeout(this.retry);
    let pending = false;
    for (const b of this.sockets.values()) {
      if (b.bound) continue;
      try {
        await b.udp.start();
        try {
          await b.tcp.start(b.udp.boundPort());
        } catch (err) {
          b.udp.close();
          throw err;
        }
        b.bound = true;
        delete b.error;
      } catch (err) {
        b.error = (err as Error).message;
        pending = true;
      }
    }
    if (pending) {
      this.retry = setTimeout(() => {
        void this.bindPending().then(() => this.onChange(this.states()));
      }, RETRY_MS);
      this.retry.unref();
    }
  }

  states(): ListenerState[] {
    return [...this.sockets.values()].map((b) => ({
      listener: b.listener,
      address: b.address,
      port: b.bound ? b.udp.boundPort() : b.port,
      bound: b.bound,
      ...(b.error !== undefined ? { error: b.error } : {}),
      ...(b.bound && b.udp.transport !== undefined ? { udpTransport: b.udp.transport, udpTransportNote: b.udp.transportNote } : {}),
    }));
  }

  /** TCP connections open now, over every listener. */
  tcpConnections(): number {
    let n = 0;
    for (const b of this.sockets.values()) n += b.tcp.connectionCount;
    return n;
  }

  close(): void {
    clearTimeout(this.retry);
    for (const b of this.sockets.values()) {
      b.udp.close();
      b.tcp.close();
    }
    this.sockets.clear();
  }
}
