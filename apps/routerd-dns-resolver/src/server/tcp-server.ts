// One TCP listening socket (RFC 7766): two-byte length framing, pipelined queries answered as they are
// ready (in any order), an idle timeout while nothing is pending, a cap on queries in flight per
// connection (reading pauses beyond it) and on connections (the oldest idle one makes room).
import { createServer, type Server, type Socket } from "node:net";
import type { SourceFilter } from "../config/cidr.js";
import type { Resolver } from "../resolver/resolver.js";

export interface TcpLimits {
  idleMs: number;
  maxConnections: number;
  maxInflightPerConnection: number;
}

export const DEFAULT_TCP_LIMITS: TcpLimits = { idleMs: 10_000, maxConnections: 512, maxInflightPerConnection: 64 };

class Connection {
  private buffered: Buffer = Buffer.alloc(0);
  private inflight = 0;
  private idle: NodeJS.Timeout | undefined;
  lastActive = Date.now();

  constructor(
    readonly socket: Socket,
    private readonly limits: TcpLimits,
    private readonly onQuery: (conn: Connection, msg: Buffer) => void,
    private readonly onClose: (conn: Connection) => void,
  ) {
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("error", () => socket.destroy());
    socket.on("close", () => {
      clearTimeout(this.idle);
      this.onClose(this);
    });
    this.arm();
  }

  get isIdle(): boolean {
    return this.inflight === 0;
  }

  private arm(): void {
    clearTimeout(this.idle);
    this.lastActive = Date.now();
    if (this.inflight > 0) return;
    this.idle = setTimeout(() => this.socket.end(), this.limits.idleMs);
  }

  private onData(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    while (this.buffered.length >= 2) {
      const len = this.buffered.readUInt16BE(0);
      if (this.buffered.length < 2 + len) break;
      const msg = Buffer.from(this.buffered.subarray(2, 2 + len));
      this.buffered = this.buffered.subarray(2 + len);
      this.inflight++;
      if (this.inflight >= this.limits.maxInflightPerConnection) this.socket.pause();
      this.onQuery(this, msg);
    }
    this.arm();
  }

  /** Sends one answer, framed; or just counts a dropped query done. */
  answered(out: Buffer | undefined): void {
    this.inflight--;
    if (out !== undefined && !this.socket.destroyed) {
      const framed = Buffer.allocUnsafe(out.length + 2);
      framed.writeUInt16BE(out.length, 0);
      out.copy(framed, 2);
      this.socket.write(framed);
    }
    if (this.inflight < this.limits.maxInflightPerConnection && this.socket.isPaused()) this.socket.resume();
    this.arm();
  }
}

export class TcpServer {
  private server: Server | undefined;
  private readonly connections = new Set<Connection>();

  constructor(
    readonly address: string,
    readonly port: number,
    private readonly resolver: () => Resolver,
    public filter: SourceFilter,
    private readonly limits: TcpLimits = DEFAULT_TCP_LIMITS,
  ) {}

  /** Listens on `port` (the UDP socket's, when the configured port is 0 and the kernel chose). */
  start(port = this.port): Promise<void> {
    const server = createServer({ pauseOnConnect: false, noDelay: true }, (socket) => this.accept(socket));
    server.maxConnections = this.limits.maxConnections + 16;
    return new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen({ host: this.address, port, ipv6Only: this.address.includes(":"), exclusive: true }, () => {
        server.off("error", reject);
        server.on("error", () => undefined);
        this.server = server;
        resolve();
      });
    });
  }

  private accept(socket: Socket): void {
    if (this.connections.size >= this.limits.maxConnections) {
      // Make room: the connection idle the longest goes (RFC 7766 §6.2.3).
      let oldest: Connection | undefined;
      for (const c of this.connections) if (c.isIdle && (oldest === undefined || c.lastActive < oldest.lastActive)) oldest = c;
      if (oldest === undefined) {
        socket.destroy();
        return;
      }
      oldest.socket.destroy();
      this.connections.delete(oldest);
    }
    const address = socket.remoteAddress ?? "";
    const port = socket.remotePort ?? 0;
    const client = { address, port, protocol: "tcp" as const };
    const allowed = this.filter.allows(address);
    const conn = new Connection(
      socket,
      this.limits,
      (c, msg) => {
        const resolver = this.resolver();
        resolver.stats.tcpQueries++;
        let done = false;
        const reply = (out: Buffer): void => {
          if (done) return;
          done = true;
          c.answered(out);
        };
        const willReply = allowed ? resolver.handle(msg, client, reply) : resolver.refuse(msg, client, reply);
        // A dropped query (a response, a runt) gets no answer but still leaves the in-flight count.
        if (!willReply) c.answered(undefined);
      },
      (c) => this.connections.delete(c),
    );
    this.connections.add(conn);
  }

  boundPort(): number {
    const a = this.server?.address();
    return typeof a === "object" && a !== null ? a.port : this.port;
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  close(): void {
    this.server?.close();
    for (const c of this.connections) c.socket.destroy();
    this.connections.clear();
    this.server = undefined;
  }
}
