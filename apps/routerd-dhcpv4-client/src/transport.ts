// UDP transport on port 68, bound to one interface with SO_BINDTOIFINDEX so that several clients in one
// namespace each see only their own link's traffic. Broadcasts go to 255.255.255.255:67 out of that link.
//
// Limits of a UDP (not packet) socket, documented in README.md: the source address of our broadcasts is
// whatever the kernel picks (0.0.0.0 while no address exists on the host), and unicast replies to an
// address not yet configured are dropped by the kernel, so DISCOVER/REQUEST set the BOOTP broadcast flag.
import { createSocket, type Socket } from "node:dgram";
import { loadSetSockOpt } from "./native-sockopt.js";

export const CLIENT_PORT = 68;
export const SERVER_PORT = 67;
const SOL_SOCKET = 1;
/** Linux >= 5.7; asm-generic/socket.h. */
const SO_BINDTOIFINDEX = 62;

export interface PacketSource {
  address: string;
  port: number;
}

export interface Transport {
  send(data: Uint8Array, to: string): Promise<void>;
  close(): Promise<void>;
}

export interface TransportOptions {
  ifindex: number;
  onMessage: (data: Buffer, from: PacketSource) => void;
  onError: (err: Error) => void;
  /** Test seams; the defaults are the DHCP ports. */
  clientPort?: number;
  serverPort?: number;
}

export async function openUdpTransport(opts: TransportOptions): Promise<Transport> {
  const setsockopt = await loadSetSockOpt();
  const clientPort = opts.clientPort ?? CLIENT_PORT;
  const serverPort = opts.serverPort ?? SERVER_PORT;
  // reuseAddr lets one client per interface share port 68; the device binding keeps them apart.
  const socket = createSocket({ type: "udp4", reuseAddr: true });
  return new Promise((resolve, reject) => {
    const onBindError = (err: Error): void => {
      socket.close();
      reject(err);
    };
    socket.once("error", onBindError);
    socket.bind({ port: clientPort, address: "0.0.0.0" }, () => {
      socket.off("error", onBindError);
      try {
        setsockopt(socket, SOL_SOCKET, SO_BINDTOIFINDEX, opts.ifindex);
        socket.setBroadcast(true);
      } catch (err) {
        socket.close();
        reject(new Error(`cannot bind the DHCP socket to ifindex ${opts.ifindex}: ${(err as Error).message}`));
        return;
      }
      socket.on("error", opts.onError);
      socket.on("message", (data, rinfo) => {
        // Servers and relays always answer from port 67; anything else is not DHCP.
        if (rinfo.port !== serverPort) return;
        opts.onMessage(data, { address: rinfo.address, port: rinfo.port });
      });
      resolve(new UdpTransport(socket, serverPort));
    });
  });
}

class UdpTransport implements Transport {
  private closed = false;

  constructor(
    private readonly socket: Socket,
    private readonly serverPort: number,
  ) {}

  send(data: Uint8Array, to: string): Promise<void> {
    if (this.closed) return Promise.reject(new Error("transport closed"));
    return new Promise((resolve, reject) => {
      this.socket.send(data, this.serverPort, to, (err) => (err ? reject(err) : resolve()));
    });
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }
}
