// DNS probe: one UDP query with a random id from a fresh socket (random source port), connected to the
// server so the kernel drops datagrams from anyone else and reports ICMP port-unreachable as ECONNREFUSED.
// Success: a response with our id and question, rcode NOERROR and at least one answer record. Datagrams
// that do not parse or do not match are ignored (they may be spoofed or stray); if nothing valid arrives
// before the timeout, the failure says how many were ignored.
import { randomInt } from "node:crypto";
import { createSocket, type Socket } from "node:dgram";
import dnsPacket from "dns-packet";
import { effectivePort, type DnsQuery } from "../config.js";
import { resolveTarget } from "../net/resolve.js";
import { applySocketOptions, resolveSocketOptions } from "../net/socket-options.js";
import { elapsedMs, failureFromError, timeoutOutcome, type FailureReason, type ProbeFn, type ProbeOutcome } from "./outcome.js";

const RCODES = ["NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP", "REFUSED", "YXDOMAIN", "YXRRSET", "NXRRSET", "NOTAUTH", "NOTZONE"];

export function encodeQuery(id: number, query: DnsQuery): Buffer {
  return dnsPacket.encode({
    type: "query",
    id,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ type: query.type, name: query.name, class: "IN" }],
  });
}

/** Verdict on one datagram: "ignore" (not an answer to our query), or the probe's outcome. */
export type ReplyVerdict = { kind: "ignore"; why: string } | { kind: "ok"; detail: string } | { kind: "fail"; reason: FailureReason; error: string };

const sameName = (a: string, b: string): boolean => a.replace(/\.$/, "").toLowerCase() === b.replace(/\.$/, "").toLowerCase();

/** Pure: judges a datagram against the query we sent. Never throws. */
export function judgeReply(data: Buffer, id: number, query: DnsQuery): ReplyVerdict {
  if (data.length < 12) return { kind: "ignore", why: `short datagram (${data.length} bytes)` };
  if (data.readUInt16BE(0) !== id) return { kind: "ignore", why: "id mismatch" };
  const flags = data.readUInt16BE(2);
  if ((flags & 0x8000) === 0) return { kind: "ignore", why: "not a response" };
  // Cheap sanity checks before a full decode: one question, and no more records than the bytes can hold
  // (a record takes at least 11 bytes), so garbage costs microseconds, not a 65535-entry decode.
  if (data.readUInt16BE(4) !== 1) return { kind: "ignore", why: "malformed: not exactly one question" };
  const records = data.readUInt16BE(6) + data.readUInt16BE(8) + data.readUInt16BE(10);
  if (records * 11 > data.length - 12 - 5) return { kind: "ignore", why: `malformed: ${records} records cannot fit in ${data.length} bytes` };
  let packet: dnsPacket.DecodedPacket;
  try {
    packet = dnsPacket.decode(data);
  } catch (err) {
    return { kind: "ignore", why: `malformed: ${(err as Error).message}` };
  }
  const question = packet.questions?.[0];
  if (packet.questions?.length !== 1 || question === undefined || !sameName(question.name, query.name) || question.type !== query.type) {
    return { kind: "ignore", why: "question mismatch" };
  }
  const rcode = flags & 0x000f;
  if (rcode !== 0) return { kind: "fail", reason: "DnsErrorRcode", error: `rcode ${RCODES[rcode] ?? rcode}` };
  const answers = packet.answers?.length ?? 0;
  if (answers === 0) return { kind: "fail", reason: "DnsNoAnswer", error: `no answer records for ${query.name} ${query.type}` };
  return { kind: "ok", detail: `${answers} answer${answers === 1 ? "" : "s"}` };
}

function bindSocket(socket: Socket, address: string | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once("error", reject);
    socket.bind({ port: 0, ...(address !== undefined ? { address } : {}) }, () => {
      socket.off("error", reject);
      resolve();
    });
  });
}

function connectSocket(socket: Socket, port: number, address: string): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.connect(port, address, (err?: Error) => (err ? reject(err) : resolve()));
  });
}

/** Waits for a valid reply; resolves with the outcome (timeout included), never rejects. */
function awaitReply(socket: Socket, id: number, query: DnsQuery, start: bigint, timeoutMs: number, signal: AbortSignal): Promise<ProbeOutcome> {
  return new Promise((resolve) => {
    let ignored = 0;
    let lastIgnored = "";
    const finish = (outcome: ProbeOutcome): void => {
      signal.removeEventListener("abort", onAbort);
      socket.removeAllListeners("message");
      resolve(outcome);
    };
    const onAbort = (): void => {
      const base = timeoutOutcome(timeoutMs);
      // A server that only ever sent garbage is not "silent": say so.
      finish(ignored === 0 ? base : { ...base, reason: "MalformedReply", error: `${base.error}; ignored ${ignored} bad datagram(s), last: ${lastIgnored}` });
    };
    signal.addEventListener("abort", onAbort, { once: true });
    socket.on("message", (data: Buffer) => {
      const verdict = judgeReply(data, id, query);
      if (verdict.kind === "ignore") {
        ignored += 1;
        lastIgnored = verdict.why;
        return;
      }
      const latencyMs = elapsedMs(start);
      finish(verdict.kind === "ok" ? { ok: true, latencyMs, detail: verdict.detail } : { ok: false, reason: verdict.reason, error: verdict.error, latencyMs });
    });
    socket.on("error", (err) => finish(failureFromError(err, elapsedMs(start))));
    if (signal.aborted) onAbort();
  });
}

export const dnsProbe: ProbeFn = async (probe, signal) => {
  const start = process.hrtime.bigint();
  const query = probe.query;
  const port = effectivePort(probe);
  if (query === undefined || port === undefined) return { ok: false, reason: "LocalError", error: "dns probe without a query" };
  let socket: Socket | undefined;
  try {
    const server = await resolveTarget(probe.target, probe.sourceAddress, signal);
    const socketOptions = await resolveSocketOptions(probe);
    socket = createSocket({ type: server.family === 6 ? "udp6" : "udp4" });
    socket.on("error", () => undefined);
    await bindSocket(socket, probe.sourceAddress);
    applySocketOptions(socket, socketOptions);
    await connectSocket(socket, port, server.address);
    const id = randomInt(0, 0x10000);
    const reply = awaitReply(socket, id, query, start, probe.timeoutMs, signal);
    socket.send(encodeQuery(id, query));
    return await reply;
  } catch (err) {
    return signal.aborted ? timeoutOutcome(probe.timeoutMs) : failureFromError(err, elapsedMs(start));
  } finally {
    try {
      socket?.close();
    } catch {
      /* never bound */
    }
  }
};
