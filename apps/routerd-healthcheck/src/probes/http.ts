// HTTP(S) probe: GET <path>, success when the status is expected (default 200-399) and, with expectBody,
// the first 64 KiB of the body contain that text. Latency is the time to the response headers; without
// expectBody the body is never read. A fresh connection per attempt (no keep-alive pool), so each attempt
// tests the path again.
//
// HTTPS does NOT verify the server certificate unless tlsVerify is set: this is a liveness probe of an
// uplink or a service, and an expired or self-signed certificate on a health endpoint must not move
// traffic. SNI carries `host`, or the target when it is a host name.
import { request, type IncomingMessage } from "node:http";
import { isIP, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { effectivePort, type ProbeConfig } from "../config.js";
import { AbortedError } from "../net/abort.js";
import { connectProbeTarget } from "./connect-target.js";
import { elapsedMs, failureFromError, timeoutOutcome, type ProbeFn, type ProbeOutcome } from "./outcome.js";

const DEFAULT_PORT = { http: 80, https: 443 } as const;
const USER_AGENT = "routerd-healthcheck";
const BODY_LIMIT = 64 * 1024;

export function statusExpected(status: number, expect: readonly number[] | undefined): boolean {
  return expect === undefined ? status >= 200 && status <= 399 : expect.includes(status);
}

/** Host header: the target (IPv6 in brackets), with the port when it is not the scheme's default. */
export function hostHeader(probe: ProbeConfig): string {
  const host = probe.host ?? (isIP(probe.target) === 6 ? `[${probe.target}]` : probe.target);
  const port = effectivePort(probe);
  const standard = probe.type === "https" ? DEFAULT_PORT.https : DEFAULT_PORT.http;
  return port === undefined || port === standard ? host : `${host}:${port}`;
}

function upgradeTls(socket: Socket, probe: ProbeConfig): Socket {
  const servername = probe.host ?? (isIP(probe.target) === 0 ? probe.target : undefined);
  return tlsConnect({
    socket,
    // Liveness, not authenticity, unless asked: see the file comment. The identity is checked against host.
    rejectUnauthorized: probe.tlsVerify === true,
    host: servername ?? probe.target,
    ...(servername ? { servername } : {}),
    ALPNProtocols: ["http/1.1"],
  });
}

/** Whether the body's first BODY_LIMIT bytes contain `text`; reads no further than needed. */
function bodyContains(res: IncomingMessage, text: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const done = (found: boolean) => {
      res.removeAllListeners("data");
      resolve(found);
    };
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => {
      seen = (seen + chunk).slice(0, BODY_LIMIT);
      if (seen.includes(text)) done(true);
      else if (seen.length >= BODY_LIMIT) done(false);
    });
    res.once("end", () => done(seen.includes(text)));
    res.once("error", reject);
  });
}

interface Reply {
  status: number;
  /** Present when the probe has expectBody. */
  bodyMatched?: boolean;
}

/** Sends the request over `socket` and resolves with the response status (and the body check). */
function fetchStatus(socket: Socket, probe: ProbeConfig, signal: AbortSignal): Promise<Reply> {
  return new Promise<Reply>((resolve, reject) => {
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
      const status = res.statusCode ?? 0;
      if (probe.expectBody !== undefined && statusExpected(status, probe.expectStatus)) {
        bodyContains(res, probe.expectBody).then(
          (bodyMatched) => {
            signal.removeEventListener("abort", onAbort);
            req.destroy();
            resolve({ status, bodyMatched });
          },
          (err: unknown) => {
            signal.removeEventListener("abort", onAbort);
            req.destroy();
            reject(err);
          },
        );
        return;
      }
      signal.removeEventListener("abort", onAbort);
      res.on("error", () => undefined);
      // Only the status matters: drop the connection instead of reading the body.
      req.destroy();
      resolve({ status });
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
    const { status, bodyMatched } = await fetchStatus(socket, probe, signal);
    const latencyMs = elapsedMs(start);
    if (bodyMatched === false) return { ok: false, reason: "BadStatus", error: `HTTP ${status}, body lacks ${JSON.stringify(probe.expectBody)}`, latencyMs };
    if (statusExpected(status, probe.expectStatus)) return { ok: true, latencyMs, detail: `HTTP ${status}` };
    const wanted = probe.expectStatus?.join(", ") ?? "200-399";
    return { ok: false, reason: "BadStatus", error: `HTTP ${status}, expected ${wanted}`, latencyMs };
  } catch (err) {
    return signal.aborted ? timeoutOutcome(probe.timeoutMs) : failureFromError(err, elapsedMs(start));
  } finally {
    socket?.destroy();
  }
};
