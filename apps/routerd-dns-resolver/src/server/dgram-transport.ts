// A UDP listening socket through node:dgram: one JS callback and one send per datagram.
import { createSocket, type Socket } from "node:dgram";
import { isIP } from "node:net";
import type { ClientInfo, Reply } from "../resolver/resolver.js";
import { SOCKET_BUFFER, type Deliver, type UdpTransport } from "./udp-transport.js";

/**
 * Replies go to the address a query came from, always an IP: answering dgram's lookup at once saves the
 * dns.lookup → nextTick hop Node otherwise takes for every send on an unconnected socket.
 */
function ipLookup(address: string, _family: unknown, callback: (err: Error | null, address: string, family: number) => void): void {
  callback(null, address, address.includes(":") ? 6 : 4);
}

export class DgramTransport implements UdpTransport {
  readonly kind = "dgram";
  private open = true;

  private constructor(
    private readonly socket: Socket,
    readonly port: number,
  ) {}

  static start(address: string, port: number, deliver: Deliver): Promise<DgramTransport> {
    const v6 = isIP(address) === 6;
    const socket = createSocket(v6 ? { type: "udp6", ipv6Only: true, lookup: ipLookup as never } : { type: "udp4", lookup: ipLookup as never });
    return new Promise<DgramTransport>((resolve, reject) => {
      socket.once("error", reject);
      socket.bind({ address, port, exclusive: true }, () => {
        socket.off("error", reject);
        socket.on("error", () => undefined);
        try {
          socket.setRecvBufferSize(SOCKET_BUFFER);
          socket.setSendBufferSize(SOCKET_BUFFER);
        } catch {
          // keep the kernel's default
        }
        const transport = new DgramTransport(socket, socket.address().port);
        // One client record and one reply function per socket: a query answered at once allocates neither
        // (the resolver copies the client when it answers later).
        const client: ClientInfo = { address: "", port: 0, protocol: "udp" };
        const reply: Reply = (out, _outcome, to) => {
          // An answer finishing after the listener closed (reload, stop) has nowhere to go.
          if (transport.open) socket.send(out, to.port, to.address);
        };
        socket.on("message", (msg, rinfo) => {
          client.address = rinfo.address;
          client.port = rinfo.port;
          deliver(msg, client, reply);
        });
        resolve(transport);
      });
    });
  }

  close(): void {
    if (!this.open) return;
    this.open = false;
    this.socket.close();
  }
}
