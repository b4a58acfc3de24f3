// A lookup through the resolver exactly as a client's query would go (for `routerctl dns lookup` and the
// Lookup RPC): the same pipeline, the answer decoded into presentation form with where it came from.
import type { Outcome, Resolver } from "./resolver/resolver.js";
import { CLASS, EDNS_DO, EDNS_UDP_SIZE, FLAG, rcodeName, typeFromName, typeName } from "./wire/constants.js";
import { decodeMessage, encodeMessage, type ResourceRecord } from "./wire/message.js";
import { nameFromText, nameToText } from "./wire/name.js";
import { printRecordData } from "./zones/record-text.js";

export interface LookupRecord {
  name: string;
  type: string;
  ttl: number;
  data: string;
}

export interface LookupResult {
  rcode: string;
  source: string;
  upstream: string;
  answers: LookupRecord[];
  authorities: LookupRecord[];
  authenticated: boolean;
  authoritative: boolean;
  dnssec: string;
  ms: number;
}

export class LookupError extends Error {}

const toRecord = (r: ResourceRecord): LookupRecord => ({ name: nameToText(r.name), type: typeName(r.type), ttl: r.ttl, data: printRecordData(r.type, r.data) });

export function lookup(resolver: Resolver, name: string, type = "A", dnssecOk = false): Promise<LookupResult> {
  const qtype = typeFromName(type || "A");
  if (qtype === undefined) return Promise.reject(new LookupError(`unknown record type ${JSON.stringify(type)}`));
  let qname: Buffer;
  try {
    qname = nameFromText(name);
  } catch (err) {
    return Promise.reject(new LookupError((err as Error).message));
  }
  const query = Buffer.from(
    encodeMessage({
      id: 0,
      flags: FLAG.RD,
      rcode: 0,
      questions: [{ name: qname, type: qtype, class: CLASS.IN }],
      answers: [],
      authorities: [],
      additionals: [],
      edns: { udpSize: EDNS_UDP_SIZE, version: 0, flags: dnssecOk ? EDNS_DO : 0, options: [] },
    }).wire,
  );
  const started = performance.now();
  return new Promise<LookupResult>((resolve) => {
    resolver.handle(query, { address: "routerctl", port: 0, protocol: "tcp" }, (out: Buffer, outcome?: Outcome) => {
      const msg = decodeMessage(out);
      resolve({
        rcode: rcodeName(msg.rcode),
        source: outcome?.source ?? "",
        upstream: outcome?.upstream ?? "",
        answers: msg.answers.map(toRecord),
        authorities: msg.authorities.map(toRecord),
        authenticated: (msg.flags & FLAG.AD) !== 0,
        authoritative: (msg.flags & FLAG.AA) !== 0,
        dnssec: outcome?.dnssec ?? "",
        ms: Math.round((performance.now() - started) * 1000) / 1000,
      });
    });
  });
}
