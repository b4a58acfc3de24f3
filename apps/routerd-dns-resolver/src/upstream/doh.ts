// DNS over HTTPS (RFC 8484) to one upstream over one reused HTTP/2 session: POST application/dns-message,
// or GET ?dns=<base64url> when the path is a "{?dns}" template. The query id is 0 (§4.1, cache friendly);
// the certificate is checked against tlsName (or the host name, or the IP address). A host-name address is
// resolved through the bootstrap servers by the caller's `resolve`.
import { connect as h2connect, constants as h2, type ClientHttp2Session } from "node:http2";
import { connect as tlsConnect } from "node:tls";
import { UpstreamError, type Accept, type Transport } from "./transport.js";

export interface DohTransportOptions {
  /** IP address or host name. */
  address: string;
  port: number;
  path: string;
  tlsName?: string;
  /** The address to connect to (bootstrap resolution of a host name). */
  resolve: () => Promise<string>;
  idleMs?: number;
}

const MAX_RESPONSE = 65_535;

export class DohTransport implements Transport {
  private session: Promise<ClientHttp2Session> | undefined;
  private closed = false;

  constructor(private readonly opts: DohTransportOptions) {}

  private get authority(): string {
    const host = this.opts.tlsName ?? this.opts.address;
    return `https://${host.includes(":") ? `[${host}]` : host}:${this.opts.port}`;
  }

  private async open(): Promise<ClientHttp2Session> {
    const ip = await this.opts.resolve();
    const servername = this.opts.tlsName ?? (/^[\d.]+$|:/.test(this.opts.address) ? undefined : this.opts.address);
    return new Promise<ClientHttp2Session>((resolve, reject) => {
      const session = h2connect(this.authority, {
        createConnection: () => tlsConnect({ host: ip, port: this.opts.port, ALPNProtocols: ["h2"], ...(servername !== undefined ? { servername } : {}) }),
      });
      const onError = (err: Error): void => {
        session.destroy();
        reject(new UpstreamError("tls", err.message));
      };
      session.once("error", onError);
      session.once("connect", () => {
        session.off("error", onError);
        session.on("error", () => undefined);
        session.setTimeout(this.opts.idleMs ?? 30_000, () => session.close());
        resolve(session);
      });
      // Forget this session once it ends (the current attempt may be a newer one, or a failed one).
      const forget = (): void => {
        this.session?.then(
          (s) => {
            if (s === session) this.session = undefined;
          },
          () => undefined,
        );
      };
      session.once("close", forget);
      session.on("goaway", forget);
    });
  }

  private current(): Promise<ClientHttp2Session> {
    if (this.session === undefined) {
      const attempt = this.open();
      this.session = attempt;
      attempt.catch(() => {
        if (this.session === attempt) this.session = undefined;
      });
    }
    return this.session;
  }

  async exchange<T>(query: Buffer, accept: Accept<T>, timeoutMs: number): Promise<T> {
    if (this.closed) throw new UpstreamError("closed", "transport closed");
    query.writeUInt16BE(0, 0);
    const deadline = Date.now() + timeoutMs;
    const session = await Promise.race([
      this.current(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new UpstreamError("timeout", "connect timed out")), timeoutMs).unref()),
    ]);
    const get = this.opts.path.endsWith("{?dns}");
    const path = get ? `${this.opts.path.slice(0, -"{?dns}".length)}?dns=${query.toString("base64url")}` : this.opts.path;
    return new Promise<T>((resolve, reject) => {
      const req = session.request({
        [h2.HTTP2_HEADER_METHOD]: get ? "GET" : "POST",
        [h2.HTTP2_HEADER_PATH]: path,
        [h2.HTTP2_HEADER_ACCEPT]: "application/dns-message",
        ...(get ? {} : { [h2.HTTP2_HEADER_CONTENT_TYPE]: "application/dns-message", [h2.HTTP2_HEADER_CONTENT_LENGTH]: query.length }),
      });
      const timer = setTimeout(() => {
        req.close(h2.NGHTTP2_CANCEL);
        reject(new UpstreamError("timeout", `no reply from ${this.authority}${this.opts.path}`));
      }, Math.max(1, deadline - Date.now()));
      let status = 0;
      const chunks: Buffer[] = [];
      let size = 0;
      req.on("response", (headers) => {
        status = Number(headers[h2.HTTP2_HEADER_STATUS]);
      });
      req.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_RESPONSE) req.close(h2.NGHTTP2_CANCEL);
        else chunks.push(chunk);
      });
      req.on("error", (err) => {
        clearTimeout(timer);
        reject(new UpstreamError("http", err.message));
      });
      req.on("end", () => {
        clearTimeout(timer);
        if (status !== 200) {
          reject(new UpstreamError("http", status === 0 ? `${this.authority} closed the stream before answering` : `HTTP status ${status} from ${this.authority}${this.opts.path}`));
          return;
        }
        try {
          resolve(accept(Buffer.concat(chunks)));
        } catch (err) {
          reject(new UpstreamError("mismatch", (err as Error).message));
        }
      });
      if (!get) req.end(query);
      else req.end();
    });
  }

  close(): void {
    this.closed = true;
    this.session?.then((s) => s.close(), () => undefined);
    this.session = undefined;
  }
}
