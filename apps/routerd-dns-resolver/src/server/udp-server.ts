// One UDP listening socket. Each datagram goes to the resolver; clients outside the listener's sources get
// REFUSED. Answers larger than the client's EDNS size (or 512 without EDNS) come back truncated with TC.
import { createSocket, type Socket } from "node:dgram";
import { isIP } from "node:net";
import type { SourceFilter } from "../config/cidr.js";
import type { ClientInfo, Reply, Resolver } from "../resolver/resolver.js";

/**
 * Replies go to the address a query came from, always an IP: answering dgram's lookup at once saves the
 * dns.lookup → nextTick hop Node otherwise takes for every send on an unconnected socket.
 */
function ipLookup(address: string, _family: unknown, callback: (err: Error | null, address: string, family: number) => void): void {
  callback(null, address, address.includes(":") ? 6 : 4);
}

/** Kernel receive buffer asked for: absorbs bursts while the event loop is busy (capped by rmem_max). */
const RECV_BUFFER = 4 << 20;

export class UdpServer {
  private socket: Socket | undefined;

  constructor(
    readonly address: string,
    readonly port: number,
    private readonly resolver: () => Resolver,
    public filter: SourceFilter,
  ) {}

  start(): Promise<void> {
    const v6 = isIP(this.address) === 6;
    const socket = createSocket(v6 ? { type: "udp6", ipv6Only: true, lookup: ipLookup as never } : { type: "udp4", lookup: ipLookup as never });
    return new Promise<void>((resolve, reject) => {
      socket.once("error", reject);
      socket.bind({ address: this.address, port: this.port, exclusive: true }, () => {
        socket.off("error", reject);
        socket.on("error", () => undefined);
        try {
          socket.setRecvBufferSize(RECV_BUFFER);
          socket.setSendBufferSize(RECV_BUFFER);
        } catch {
          // keep the kernel's default
        }
        // One client record and one reply function per socket: a query answered at once allocates neither
        // (the resolver copies the client when it answers later).
        const client: ClientInfo = { address: "", port: 0, protocol: "udp" };
        const reply: Reply = (out, _outcome, to) => {
          // An answer finishing after the listener closed (reload, stop) has nowhere to go.
          if (this.socket === socket) socket.send(out, to.port, to.address);
        };
        socket.on("message", (msg, rinfo) => {
          client.address = rinfo.address;
          client.port = rinfo.port;
          this.onMessage(msg, client, reply);
        });
        this.socket = socket;
        resolve();
      });
    });
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
    return this.socket?.address().port ?? this.port;
  }

  close(): void {
    this.socket?.close();
    this.socket = undefined;
  }
}
