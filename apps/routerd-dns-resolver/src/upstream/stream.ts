// DNS over TCP (RFC 7766) and over TLS (RFC 7858) to one upstream: one connection, reused and pipelined
// (many queries in flight, replies in any order, matched by id), closed after it has been idle a while.
// Each message carries its two-byte length. A reply that answers nothing we asked ends the connection.
import { connect as netConnect, type Socket } from "node:net";
import { connect as tlsConnect, type TLSSocket } from "node:tls";
import { randomId } from "./random.js";
import { awaitReply, UpstreamError, type Accept, type Pending, type Transport } from "./transport.js";

export interface StreamTransportOptions {
  address: string;
  port: number;
  /** TLS with the certificate checked against this name; undefined: plain TCP. */
  tlsName?: string;
  idleMs?: number;
  connectTimeoutMs?: number;
}

class Connection {
  readonly pending = new Map<number, Pending>();
  private buffered: Buffer = Buffer.alloc(0);
  private idleTimer: NodeJS.Timeout | undefined;
  dead = false;

  constructor(
    readonly socket: Socket | TLSSocket,
    private readonly idleMs: number,
    private readonly onDead: (c: Connection) => void,
    errorReason: "tls" | "network",
  ) {
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("error", (err) => this.kill(new UpstreamError(errorReason, err.message)));
    socket.on("close", () => this.kill(new UpstreamError("closed", "connection closed")));
    this.touch();
  }

  private touch(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.pending.size === 0) this.kill(new UpstreamError("closed", "idle"));
      else this.touch();
    }, this.idleMs);
    this.idleTimer.unref();
  }

  private onData(chunk: Buffer): void {
    this.touch();
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    while (this.buffered.length >= 2) {
      const len = this.buffered.readUInt16BE(0);
      if (this.buffered.length < 2 + len) break;
      const msg = this.buffered.subarray(2, 2 + len);
      this.buffered = this.buffered.subarray(2 + len);
      const p = len >= 2 ? this.pending.get(msg.readUInt16BE(0)) : undefined;
      if (p === undefined || !p.accept(Buffer.from(msg))) {
        this.kill(new UpstreamError("mismatch", "reply to no pending query"));
        return;
      }
    }
  }

  send(query: Buffer): void {
    this.touch();
    const framed = Buffer.allocUnsafe(query.length + 2);
    framed.writeUInt16BE(query.length, 0);
    query.copy(framed, 2);
    this.socket.write(framed);
  }

  kill(err: UpstreamError): void {
    if (this.dead) return;
    this.dead = true;
    clearTimeout(this.idleTimer);
    this.socket.destroy();
    for (const p of this.pending.values()) p.fail(err);
    this.pending.clear();
    this.onDead(this);
  }
}

export class StreamTransport implements Transport {
  private conn: Promise<Connection> | undefined;
  private closed = false;

  constructor(private readonly opts: StreamTransportOptions) {}

  private connect(): Promise<Connection> {
    const { address, port, tlsName } = this.opts;
    const timeoutMs = this.opts.connectTimeoutMs ?? 2000;
    return new Promise<Connection>((resolve, reject) => {
      const socket =
        tlsName === undefined
          ? netConnect({ host: address, port, noDelay: true })
          : tlsConnect({ host: address, port, servername: tlsName });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new UpstreamError("timeout", `connect to ${address}:${port} timed out`));
      }, timeoutMs);
      const onError = (err: Error): void => {
        clearTimeout(timer);
        socket.destroy();
        reject(new UpstreamError(tlsName === undefined ? "network" : "tls", err.message));
      };
      socket.once("error", onError);
      socket.once(tlsName === undefined ? "connect" : "secureConnect", () => {
        clearTimeout(timer);
        socket.off("error", onError);
        const conn = new Connection(
          socket,
          this.opts.idleMs ?? 10_000,
          (c) => {
            // The current attempt may be a newer (or failed) one.
            this.conn?.then(
              (current) => {
                if (current === c) this.conn = undefined;
              },
              () => undefined,
            );
          },
          tlsName === undefined ? "network" : "tls",
        );
        resolve(conn);
      });
    });
  }

  private connection(): Promise<Connection> {
    if (this.conn === undefined) {
      const attempt = this.connect();
      this.conn = attempt;
      attempt.catch(() => {
        if (this.conn === attempt) this.conn = undefined;
      });
    }
    return this.conn;
  }

  async exchange<T>(query: Buffer, accept: Accept<T>, timeoutMs: number): Promise<T> {
    if (this.closed) throw new UpstreamError("closed", "transport closed");
    const deadline = Date.now() + timeoutMs;
    const conn = await withTimeout(this.connection(), timeoutMs);
    if (conn.dead) throw new UpstreamError("closed", "connection closed");
    let id = randomId();
    while (conn.pending.has(id)) id = randomId();
    query.writeUInt16BE(id, 0);
    const { reply } = awaitReply(conn.pending, id, accept, Math.max(1, deadline - Date.now()), `no reply from ${this.opts.address}:${this.opts.port}`);
    conn.send(query);
    return reply;
  }

  close(): void {
    this.closed = true;
    this.conn?.then((c) => c.kill(new UpstreamError("closed", "transport closed")), () => undefined);
    this.conn = undefined;
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new UpstreamError("timeout", "connect timed out")), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}
