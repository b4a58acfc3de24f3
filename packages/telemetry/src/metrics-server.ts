// The Prometheus endpoint: GET /metrics on a Unix socket ("unix:/run/routerd/metrics.sock") or a TCP
// address ("127.0.0.1:9464"). Anything else answers 404; collection errors answer 500.
import { chmodSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { encodePrometheus, PROMETHEUS_CONTENT_TYPE, type MetricFamily } from "./encode/prometheus.js";
import { splitHostPort } from "./transport/syslog.js";

export type ListenAddress = { unix: string } | { host: string; port: number };

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

/** Parses "unix:PATH" or "HOST:PORT"; a non-loopback host needs allowPublic (an explicit operator choice). */
export function parseListen(value: string, allowPublic = false): ListenAddress {
  if (value.startsWith("unix:")) {
    const path = value.slice(5);
    if (!path.startsWith("/")) throw new Error(`${value}: the socket path must be absolute`);
    return { unix: path };
  }
  const { host, port } = splitHostPort(value);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`${value}: port out of range`);
  if (!allowPublic && !LOOPBACK.test(host)) throw new Error(`${value}: metrics are served on loopback or a Unix socket only; pass a 127.0.0.1 or ::1 address`);
  return { host, port };
}

export interface MetricsServer {
  readonly address: string;
  close(): Promise<void>;
}

export async function serveMetrics(listen: ListenAddress, collect: () => MetricFamily[]): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain" }).end("only GET /metrics\n");
      return;
    }
    try {
      const body = encodePrometheus(collect());
      res.writeHead(200, { "content-type": PROMETHEUS_CONTENT_TYPE }).end(body);
    } catch (err) {
      res.writeHead(500, { "content-type": "text/plain" }).end(`${(err as Error).message}\n`);
    }
  });
  if ("unix" in listen) rmSync(listen.unix, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    if ("unix" in listen) server.listen(listen.unix, resolve);
    else server.listen(listen.port, listen.host, resolve);
  });
  if ("unix" in listen) chmodSync(listen.unix, 0o660);
  server.unref();
  const address = "unix" in listen ? `unix:${listen.unix}` : `${listen.host.includes(":") ? `[${listen.host}]` : listen.host}:${listen.port}`;
  return {
    address,
    close: () =>
      new Promise((resolve) => {
        server.close(() => {
          if ("unix" in listen) rmSync(listen.unix, { force: true });
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}
