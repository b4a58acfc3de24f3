// HTTP(S) probe: GET <path>, success when the status is expected (default 200-399). Latency is the time to
// the response headers; the body is never read. A fresh connection per attempt (no keep-alive pool), so
// each attempt tests the path again.
//
// HTTPS does NOT verify the server certificate: this is a liveness probe of an uplink or a service, and an
// expired or self-signed certificate on a health endpoint must not move traffic. SNI carries the target
// when it is a host name.
import { request, type IncomingMessage } from "node:http";
import { isIP, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { effectivePort, type ProbeConfig } from "../config.js";
import { AbortedError } from "../net/abort.js";
import { connectProbeTarget } from "./connect-target.js";
import { elapsedMs, failureFromError, timeoutOutcome, type ProbeFn, type ProbeOutcome } from "./outcome.js";

const DEFAULT_PORT = { http: 80, https: 443 } as const;
const USER_AGENT = "routerd-healthcheck";

export function statusExpected(status: number, expect: readonly number[] | undefined): boolean {
  return expect === undefined ? status >= 200 && status <= 399 : expect.includes(status);
}

/** Host header: the target (IPv6 in brackets), with the port when it is not the scheme's default. */
export function hostHeader(probe: ProbeConfig): string {
  const host = isIP(probe.target) === 6 ? `[${probe.target}]` : probe.target;
  const port = effectivePort(probe);
  const standard = probe.type === "https" ? DEFAULT_PORT.https : DEFAULT_PORT.http;
  return port === undefined || port === standard ? host : `${host}:${port}`;
}

function upgradeTls(socket: Socket, probe: ProbeConfig): Socket {
  return tlsConnect({
    socket,
    // Liveness, not authenticity: see the file comment.
    rejectUnauthorized: false,
    ...(isIP(probe.target) === 0 ? { servername: probe.target } : {}),
    ALPNProtocols: ["http/1.1"],
  });
}

/** Sends the request over `socket` and resolves with the response status. */
function fetchStatus(socket: Socket, probe: ProbeConfig, signal: AbortSignal): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const req = request({
      method: "GET",
      path: probe.path ?? "/",
      headers: { host: hostHeader(probe), "user-agent": USER_AGENT, accept: "*/*", connection: "close" },
      createConnection: () => socket,
    });
    const onAbort = (): void => {
      req.destroy();
      reject(new AbortedError());
    };
    signal.addEventListener("abort", onAbort, { once: true });
    req.once("response", (res: IncomingMessage) => {
      signal.removeEventListener("abort", onAbort);
      const status = res.statusCode ?? 0;
      res.on("error", () => undefined);
      // Only the status matters: drop the connection instead of reading the body.
      req.destroy();
      resolve(status);
    });
    req.once("error", (err) => {
      signal.removeEventListener("abort", onAbort);
      req.destroy();
      reject(err);
    });
    req.end();
  });
}

export const httpProbe: ProbeFn = async (probe, signal): Promise<ProbeOutcome> => {
  const start = process.hrtime.bigint();
  let socket: Socket | undefined;
  try {
    const tcp = await connectProbeTarget(probe, signal);
    socket = probe.type === "https" ? upgradeTls(tcp, probe) : tcp;
    const status = await fetchStatus(socket, probe, signal);
    const latencyMs = elapsedMs(start);
    if (statusExpected(status, probe.expectStatus)) return { ok: true, latencyMs, detail: `HTTP ${status}` };
    const wanted = probe.expectStatus?.join(", ") ?? "200-399";
    return { ok: false, reason: "BadStatus", error: `HTTP ${status}, expected ${wanted}`, latencyMs };
  } catch (err) {
    return signal.aborted ? timeoutOutcome(probe.timeoutMs) : failureFromError(err, elapsedMs(start));
  } finally {
    socket?.destroy();
  }
};
