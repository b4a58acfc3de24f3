// Plain DNS over UDP to one upstream. Queries leave from a small pool of sockets on kernel-chosen random
// ports, each retired after a while so the port keeps changing (RFC 5452); ids are random. The sockets are
// connected to the upstream: the kernel drops datagrams from anyone else, and a send needs no address
// lookup. A reply is taken only with a pending id and when `accept` says it answers the query; anything
// else is dropped and the query keeps waiting.
import { createSocket, type Socket } from "node:dgram";
import { isIP } from "node:net";
import { randomBelow, randomId } from "./random.js";
import { awaitReply, UpstreamError, type Accept, type Pending, type Transport } from "./transport.js";

const POOL_SIZE = 8;
const USES_PER_SOCKET = 200;

interface PooledSocket {
  socket: Socket;
  ready: Promise<void>;
  pending: Map<number, Pending>;
  uses: number;
  retired: boolean;
}

export interface UdpTransportOptions {
  address: string;
  port: number;
  /** Bind sockets to this interface (SO_BINDTOIFINDEX); set by the caller's hook after bind. */
  prepare?: (socket: Socket) => void;
  onMismatch?: () => void;
}

export class UdpTransport implements Transport {
  private readonly pool: PooledSocket[] = [];
  private readonly family: 4 | 6;
  private closed = false;

  constructor(private readonly opts: UdpTransportOptions) {
    this.family = isIP(opts.address) === 6 ? 6 : 4;
  }

  private open(): PooledSocket {
    const socket = createSocket({ type: this.family === 6 ? "udp6" : "udp4" });
    const entry: PooledSocket = { socket, pending: new Map(), uses: 0, retired: false, ready: Promise.resolve() };
    entry.ready = new Promise<void>((resolve, reject) => {
      socket.once("error", reject);
      socket.bind({ port: 0, exclusive: true }, () => {
        try {
          this.opts.prepare?.(socket);
        } catch (err) {
          socket.off("error", reject);
          reject(err as Error);
          return;
        }
        socket.connect(this.opts.port, this.opts.address, () => {
          socket.off("error", reject);
          resolve();
        });
      });
    });
    entry.ready.catch(() => undefined);
    // On a connected socket the kernel reports ICMP port unreachable: the upstream is not listening, so
    // whatever waits on this socket fails now instead of at its timeout.
    socket.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code !== "ECONNREFUSED") return;
      for (const p of [...entry.pending.values()]) p.fail(new UpstreamError("network", `${this.opts.address}:${this.opts.port} refused (port unreachable)`));
    });
    socket.on("message", (msg, rinfo) => {
      if (rinfo.port !== this.opts.port || rinfo.address !== this.opts.address || msg.length < 2) return;
      const p = entry.pending.get(msg.readUInt16BE(0));
      if (p === undefined || !p.accept(msg)) this.opts.onMismatch?.();
    });
    return entry;
  }

  private pick(): PooledSocket {
    for (let i = this.pool.length - 1; i >= 0; i--) {
      const s = this.pool[i]!;
      if (s.uses >= USES_PER_SOCKET && !s.retired) s.retired = true;
      if (s.retired && s.pending.size === 0) {
        s.socket.close();
        this.pool.splice(i, 1);
      }
    }
    const live = this.pool.filter((s) => !s.retired);
    if (live.length < POOL_SIZE) {
      const fresh = this.open();
      this.pool.push(fresh);
      return fresh;
    }
    return live[randomBelow(live.length)]!;
  }

  async exchange<T>(query: Buffer, accept: Accept<T>, timeoutMs: number): Promise<T> {
    if (this.closed) throw new UpstreamError("closed", "transport closed");
    const s = this.pick();
    s.uses++;
    let id = randomId();
    for (let tries = 0; s.pending.has(id) && tries < 16; tries++) id = randomId();
    if (s.pending.has(id)) throw new UpstreamError("network", "no free query id");
    query.writeUInt16BE(id, 0);
    const { reply, fail } = awaitReply(s.pending, id, accept, timeoutMs, `no reply from ${this.opts.address}:${this.opts.port} within ${timeoutMs} ms`);
    s.ready.then(
      () => {
        try {
          s.socket.send(query, (err) => err && fail(new UpstreamError("network", err.message)));
        } catch (err) {
          // Closed meanwhile (reload, stop).
          fail(new UpstreamError("network", (err as Error).message));
        }
      },
      (err: Error) => fail(new UpstreamError("network", `cannot open a socket: ${err.message}`)),
    );
    return reply;
  }

  close(): void {
    this.closed = true;
    for (const s of this.pool.splice(0)) {
      try {
        s.socket.close();
      } catch {
        // already closed
      }
    }
  }
}
