// The BMP station's socket: TCP on 127.0.0.1 in routerd-bgp's namespace (GoBGP dials BMP stations over
// TCP only, no Unix socket), an ephemeral port, and only gobgpd's own connection accepted — any other
// local process that connects is dropped (its socket is not one of gobgpd's: owner.ts). One connection at
// a time: a new one from gobgpd replaces the last. Bytes go to a BmpReader; events to the connection's
// handler; a quiet stream is reported (idleMs) so a snapshot never waits forever.
import { createServer, type Server, type Socket } from "node:net";
import type { Logger } from "pino";
import { BmpReader, decodeBmp, type BmpEvent } from "./messages.js";
import { socketOwnedBy } from "./owner.js";

export interface StationConnection {
  event(ev: BmpEvent): void;
  idle(): void;
  closed(err: Error | undefined): void;
}

export interface StationOptions {
  logger: Logger;
  /** gobgpd's pid: only its connection is accepted. */
  pid: () => number | undefined;
  /** A new connection from gobgpd (the last one, if any, is closed first). */
  onConnection: () => StationConnection;
  idleMs?: number;
}

export class BmpStation {
  private readonly server: Server;
  private current: Socket | undefined;

  constructor(private readonly opts: StationOptions) {
    this.server = createServer({ noDelay: true }, (socket) => this.accept(socket));
  }

  /** Listens on 127.0.0.1 (port 0: one the kernel picks); resolves with the port. */
  listen(port = 0): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, "127.0.0.1", () => {
        this.server.off("error", reject);
        resolve((this.server.address() as { port: number }).port);
      });
    });
  }

  private accept(socket: Socket): void {
    const pid = this.opts.pid();
    if (pid === undefined || !socketOwnedBy(pid, socket.localPort ?? 0, socket.remotePort ?? 0)) {
      this.opts.logger.warn({ remotePort: socket.remotePort, gobgpd: pid }, "BMP connection not from our gobgpd: closed");
      socket.destroy();
      return;
    }
    this.current?.destroy();
    this.current = socket;
    const conn = this.opts.onConnection();
    let failed: Error | undefined;
    const memo = {};
    const reader = new BmpReader((buf, start, end) => {
      const ev = decodeBmp(buf, start, end, memo);
      if (ev !== undefined) conn.event(ev);
    });
    const idleMs = this.opts.idleMs ?? 3000;
    let idleTimer: NodeJS.Timeout | undefined;
    const armIdle = () => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => conn.idle(), idleMs);
      idleTimer.unref();
    };
    armIdle();
    socket.on("data", (chunk: Buffer) => {
      try {
        reader.push(chunk);
        armIdle();
      } catch (err) {
        failed = err as Error;
        this.opts.logger.warn({ err: failed.message }, "BMP stream undecodable: closing it");
        socket.destroy();
      }
    });
    socket.on("error", (err) => (failed ??= err));
    socket.on("close", () => {
      clearTimeout(idleTimer);
      if (this.current === socket) this.current = undefined;
      conn.closed(failed);
    });
  }

  close(): void {
    this.current?.destroy();
    this.server.close();
  }
}
