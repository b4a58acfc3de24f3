// Resolving a DoH server's host name through its plain-DNS bootstrap servers (the chicken and egg of a
// resolver whose upstream is named). Answers are kept for their TTL (at least a minute).
import { RCODE, TYPE } from "../wire/constants.js";
import { nameFromText } from "../wire/name.js";
import { printRecordData } from "../zones/record-text.js";
import { acceptResponse, encodeUpstreamQuery, upstreamQuestion } from "./question.js";
import { UpstreamError } from "./transport.js";
import { UdpTransport } from "./udp.js";

const known = new Map<string, { address: string; until: number }>();
const TIMEOUT_MS = 1000;

export async function resolveBootstrap(host: string, servers: readonly string[], now: () => number = Date.now): Promise<string> {
  const hit = known.get(host);
  if (hit !== undefined && hit.until > now()) return hit.address;
  const name = nameFromText(host);
  let lastError = "no bootstrap servers";
  for (const server of servers) {
    for (const type of [TYPE.A, TYPE.AAAA]) {
      const t = new UdpTransport({ address: server, port: 53 });
      try {
        const q = upstreamQuestion(name, type, { dnssecOk: false, checkingDisabled: false });
        const wire = encodeUpstreamQuery(q, 0);
        const msg = await t.exchange(wire, (r) => acceptResponse(r, wire.readUInt16BE(0), q), TIMEOUT_MS);
        const rr = msg.rcode === RCODE.NOERROR ? msg.answers.find((a) => a.type === type) : undefined;
        if (rr !== undefined) {
          const address = printRecordData(type, rr.data);
          known.set(host, { address, until: now() + Math.max(rr.ttl, 60) * 1000 });
          return address;
        }
        lastError = `${server} has no ${type === TYPE.A ? "A" : "AAAA"} record for ${host}`;
      } catch (err) {
        lastError = `${server}: ${(err as Error).message}`;
      } finally {
        t.close();
      }
    }
  }
  throw new UpstreamError("network", `cannot resolve ${host} through bootstrap servers: ${lastError}`);
}
