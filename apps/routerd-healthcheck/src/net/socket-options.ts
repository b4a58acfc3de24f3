// Binding a probe's socket to one uplink: SO_BINDTOIFINDEX (the integer form of SO_BINDTODEVICE; the
// `sockopt` package can only pass integers) and SO_MARK for policy routing. Both need CAP_NET_RAW /
// CAP_NET_ADMIN, which routerd's daemons have as root.
import { readFileSync } from "node:fs";
import sockopt from "sockopt";

const SOL_SOCKET = 1;
/** asm-generic/socket.h */
const SO_MARK = 36;
/** Linux >= 5.7. */
const SO_BINDTOIFINDEX = 62;

export interface BindOptions {
  sourceAddress?: string;
  /** Linux interface name. */
  interface?: string;
  fwmark?: number;
}

export interface SocketOptions {
  ifindex?: number;
  fwmark?: number;
}

/** Anything sockopt can reach the fd of (`_handle.fd`): net/dgram sockets after bind, or a raw libuv handle. */
export type FdHolder = object;

export function needsSocketOptions(bind: BindOptions): boolean {
  return bind.interface !== undefined || bind.fwmark !== undefined;
}

/**
 * The interface's index, read from sysfs on every attempt: a PPPoE or DHCP uplink that comes back gets a
 * new index. sysfs must be this network namespace's (systemd and `ip netns exec` provide that). Read
 * synchronously on purpose: it is memory, and the libuv thread pool may be busy with hung name lookups.
 */
export async function interfaceIndex(ifname: string): Promise<number> {
  let text: string;
  try {
    text = readFileSync(`/sys/class/net/${ifname}/ifindex`, "utf8");
  } catch {
    throw Object.assign(new Error(`interface ${ifname} not found`), { code: "ENODEV" });
  }
  const index = Number.parseInt(text, 10);
  if (!Number.isInteger(index) || index <= 0) throw Object.assign(new Error(`interface ${ifname}: bad ifindex ${text.trim()}`), { code: "ENODEV" });
  return index;
}

export async function resolveSocketOptions(bind: BindOptions): Promise<SocketOptions> {
  return {
    ...(bind.interface !== undefined ? { ifindex: await interfaceIndex(bind.interface) } : {}),
    ...(bind.fwmark !== undefined ? { fwmark: bind.fwmark } : {}),
  };
}

/** Applies the options to a bound socket. Throws (EPERM, ENODEV, ...) when the kernel refuses. */
export function applySocketOptions(socket: FdHolder, opts: SocketOptions): void {
  // sockopt reads socket._handle, which Node flags as deprecated for dgram (DEP0112): keep that off stderr.
  const quiet = process.noDeprecation;
  process.noDeprecation = true;
  try {
    if (opts.ifindex !== undefined) sockopt.setsockopt(socket, SOL_SOCKET, SO_BINDTOIFINDEX, opts.ifindex);
    // The C side takes an int: marks above 0x7fffffff travel as their two's complement.
    if (opts.fwmark !== undefined) sockopt.setsockopt(socket, SOL_SOCKET, SO_MARK, opts.fwmark | 0);
  } catch (err) {
    throw Object.assign(new Error(`cannot set socket options: ${(err as Error).message}`), { code: errnoOf((err as Error).message) });
  } finally {
    process.noDeprecation = quiet;
  }
}

/** Reads options back (tests use it to prove the kernel took them). */
export function readSocketOptions(socket: FdHolder): { ifindex: number; fwmark: number } {
  const quiet = process.noDeprecation;
  process.noDeprecation = true;
  try {
    return {
      ifindex: sockopt.getsockopt(socket, SOL_SOCKET, SO_BINDTOIFINDEX),
      fwmark: sockopt.getsockopt(socket, SOL_SOCKET, SO_MARK) >>> 0,
    };
  } finally {
    process.noDeprecation = quiet;
  }
}

/** sockopt reports "setsockopt failed: <strerror> (<errno>)"; map the common errnos back to codes. */
const ERRNO_CODES: Record<string, string> = { "1": "EPERM", "13": "EACCES", "19": "ENODEV", "22": "EINVAL", "92": "ENOPROTOOPT" };

function errnoOf(message: string): string {
  const n = /\((\d+)\)\s*$/.exec(message)?.[1];
  return (n !== undefined ? ERRNO_CODES[n] : undefined) ?? "ESOCKOPT";
}
