// TCP connections for probes, optionally bound to one uplink.
//
// net.connect() creates its socket and connects in one step, so there is no moment to set SO_MARK or
// SO_BINDTOIFINDEX before the SYN leaves. When a probe needs them we build the libuv TCP handle ourselves
// (process.binding("tcp_wrap"), a documentation-only deprecation, DEP0111), bind it (which creates the
// fd), set the options, and hand the handle to net.Socket, which then connects it. `manualStart` keeps
// net.Socket from reading an unconnected handle. Source-address-only probes use plain net.connect.
// tcp-connect.test.ts proves the options reach the kernel, so a Node upgrade that breaks this fails there.
import { Socket, type SocketConstructorOpts } from "node:net";
import { getSystemErrorName } from "node:util";
import { AbortedError } from "./abort.js";
import type { ResolvedTarget } from "./resolve.js";
import { applySocketOptions, type SocketOptions } from "./socket-options.js";

interface TcpHandle {
  readonly fd: number;
  bind(address: string, port: number): number;
  bind6(address: string, port: number, flags: number): number;
  close(): void;
}

interface TcpWrapBinding {
  TCP: new (type: number) => TcpHandle;
  constants: { SOCKET: number };
}

let binding: TcpWrapBinding | null | undefined;

function tcpWrap(): TcpWrapBinding | null {
  if (binding === undefined) {
    try {
      const legacy = process as unknown as { binding(name: string): unknown };
      const b = legacy.binding("tcp_wrap") as Partial<TcpWrapBinding>;
      binding = typeof b.TCP === "function" && typeof b.constants?.SOCKET === "number" ? (b as TcpWrapBinding) : null;
    } catch {
      binding = null;
    }
  }
  return binding;
}

/** Whether this Node lets us set socket options before connect (see the file comment). */
export function canBindTcpBeforeConnect(): boolean {
  return tcpWrap() !== null;
}

function uvError(code: number, syscall: string, address: string): NodeJS.ErrnoException {
  const name = getSystemErrorName(code);
  return Object.assign(new Error(`${syscall} ${name} ${address}`), { code: name, errno: code, syscall });
}

/** An unconnected net.Socket whose fd is bound (to `source` or the wildcard) and carries `opts`. */
function preboundSocket(family: 4 | 6, source: string | undefined, opts: SocketOptions): Socket {
  const wrap = tcpWrap();
  if (wrap === null) {
    throw Object.assign(new Error("this Node version cannot set SO_MARK/SO_BINDTOIFINDEX on TCP sockets before connect"), {
      code: "ENOTSUP_TCP_OPTIONS",
    });
  }
  const handle = new wrap.TCP(wrap.constants.SOCKET);
  const address = source ?? (family === 6 ? "::" : "0.0.0.0");
  const err = family === 6 ? handle.bind6(address, 0, 0) : handle.bind(address, 0);
  if (err !== 0) {
    handle.close();
    throw uvError(err, "bind", address);
  }
  try {
    applySocketOptions({ _handle: handle }, opts);
  } catch (e) {
    handle.close();
    throw e;
  }
  return new Socket({ handle, manualStart: true } as SocketConstructorOpts & { handle: TcpHandle; manualStart: boolean });
}

export interface TcpConnectOptions {
  sourceAddress?: string;
  /** Resolved socket options; when empty, plain net.connect is used. */
  socketOptions: SocketOptions;
}

/** Resolves with the connected socket; rejects with the socket's error, or AbortedError on abort. */
export function connectTcp(target: ResolvedTarget & { port: number }, opts: TcpConnectOptions, signal: AbortSignal): Promise<Socket> {
  if (signal.aborted) return Promise.reject(new AbortedError());
  const bound = opts.socketOptions.ifindex !== undefined || opts.socketOptions.fwmark !== undefined;
  let socket: Socket;
  try {
    socket = bound ? preboundSocket(target.family, opts.sourceAddress, opts.socketOptions) : new Socket();
  } catch (err) {
    return Promise.reject(err);
  }
  return new Promise<Socket>((resolve, reject) => {
    const cleanup = (): void => {
      signal.removeEventListener("abort", onAbort);
      socket.off("connect", onConnect);
      socket.off("error", onError);
    };
    const onAbort = (): void => {
      cleanup();
      socket.destroy();
      reject(new AbortedError());
    };
    const onConnect = (): void => {
      cleanup();
      // A late reset must never become an uncaught 'error': the caller reports failures its own way.
      socket.on("error", () => undefined);
      resolve(socket);
    };
    const onError = (err: Error): void => {
      cleanup();
      socket.destroy();
      reject(err);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    socket.once("connect", onConnect);
    socket.once("error", onError);
    const local = !bound && opts.sourceAddress !== undefined ? { localAddress: opts.sourceAddress } : {};
    socket.connect({ host: target.address, port: target.port, family: target.family, ...local });
  });
}
