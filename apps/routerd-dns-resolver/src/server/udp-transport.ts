// What a UDP listener needs from its socket: datagrams in (with a client and a way to answer), the bound
// port, close. Two implementations: native-transport.ts (recvmmsg/sendmmsg batches, Linux) and
// dgram-transport.ts (node:dgram, everywhere).
import type { ClientInfo, Reply } from "../resolver/resolver.js";

export type UdpTransportKind = "native" | "dgram";

/** Called for every datagram; `client` and `reply` may be shared between calls (see Reply). */
export type Deliver = (msg: Buffer, client: ClientInfo, reply: Reply) => void;

export interface UdpTransport {
  readonly kind: UdpTransportKind;
  readonly port: number;
  close(): void;
}

/** Kernel buffers asked for: absorb bursts while the event loop is busy (capped by rmem_max/wmem_max). */
export const SOCKET_BUFFER = 4 << 20;
