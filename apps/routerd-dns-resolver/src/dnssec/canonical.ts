// What an RRSIG signs (RFC 4034 §3.1.8.1, §6): the RRSIG data without its signature, then every record of
// the RRset in canonical form (lower-cased owner, or the wildcard it was expanded from; the original TTL;
// canonical data) sorted by data and without duplicates.
import { TYPE } from "../wire/constants.js";
import type { ResourceRecord } from "../wire/message.js";
import { labelCount, lowerName, stripLabels, type Name } from "../wire/name.js";
import { canonicalRdata } from "../wire/rdata.js";
import type { Rrsig } from "./records.js";

const WILDCARD_LABEL = Buffer.from([1, 0x2a]);

/** The owner as signed: the name itself, or "*." + its rightmost `labels` labels for a wildcard expansion. */
export function signedOwner(owner: Name, labels: number): Name {
  const count = labelCount(owner);
  if (labels >= count) return lowerName(owner);
  return Buffer.concat([WILDCARD_LABEL, lowerName(stripLabels(owner, count - labels))]);
}

export function signedData(sig: Rrsig, rrset: readonly ResourceRecord[]): Buffer {
  const first = rrset[0];
  if (first === undefined) return Buffer.alloc(0);
  const owner = signedOwner(first.name, sig.labels);
  const datas = rrset.map((r) => canonicalRdata(r.type, r.data)).sort(Buffer.compare);
  const parts: Buffer[] = [canonicalRdata(TYPE.RRSIG, sig.signedPart)];
  let previous: Buffer | undefined;
  for (const d of datas) {
    if (previous !== undefined && previous.equals(d)) continue;
    previous = d;
    const fixed = Buffer.alloc(10);
    fixed.writeUInt16BE(first.type, 0);
    fixed.writeUInt16BE(first.class, 2);
    fixed.writeUInt32BE(sig.originalTtl, 4);
    fixed.writeUInt16BE(d.length, 8);
    parts.push(owner, fixed, d);
  }
  return Buffer.concat(parts);
}
