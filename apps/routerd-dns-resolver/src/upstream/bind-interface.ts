// Sending an upstream's UDP queries out of one interface (DNSUpstream sourceInterface): SO_BINDTOIFINDEX,
// the integer form of SO_BINDTODEVICE (the `sockopt` package only passes integers). Needs CAP_NET_RAW.
import type { Socket } from "node:dgram";
import { readFileSync } from "node:fs";
import sockopt from "sockopt";

const SOL_SOCKET = 1;
/** Linux >= 5.7. */
const SO_BINDTOIFINDEX = 62;

export function interfaceIndex(ifname: string): number {
  const index = Number.parseInt(readFileSync(`/sys/class/net/${ifname}/ifindex`, "utf8"), 10);
  if (!Number.isInteger(index) || index <= 0) throw new Error(`interface ${ifname} not found`);
  return index;
}

/** Throws when the interface is missing or the kernel refuses. */
export function bindToInterface(socket: Socket, ifname: string): void {
  const quiet = process.noDeprecation;
  // sockopt reads socket._handle, which Node flags as deprecated for dgram (DEP0112).
  process.noDeprecation = true;
  try {
    sockopt.setsockopt(socket, SOL_SOCKET, SO_BINDTOIFINDEX, interfaceIndex(ifname));
  } finally {
    process.noDeprecation = quiet;
  }
}
