// A DNSSEC zone signer for unit tests (ECDSA P-256 through node:crypto): keys, DS, RRSIGs and NSEC chains,
// so the validator can be tested on secure, tampered, expired and denial cases without a network.
import { createHash, generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { signedData } from "../dnssec/canonical.js";
import { encodeTypeBitmap, keyTag, parseRrsig } from "../dnssec/records.js";
import { CLASS, TYPE } from "../wire/constants.js";
import type { ResourceRecord } from "../wire/message.js";
import { canonicalCompare, labelCount, lowerName, nameFromText, nameKey, nameToText, type Name } from "../wire/name.js";
import { parseRecordData } from "../zones/record-text.js";

export interface Key {
  private: KeyObject;
  data: Buffer;
  tag: number;
}

export function makeKey(flags: number): Key {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const jwk = publicKey.export({ format: "jwk" });
  const pk = Buffer.concat([Buffer.from(jwk.x!, "base64url"), Buffer.from(jwk.y!, "base64url")]);
  const data = Buffer.concat([Buffer.from([flags >> 8, flags & 0xff, 3, 13]), pk]);
  return { private: privateKey, data, tag: keyTag(data) };
}

export const rr = (name: string, type: keyof typeof TYPE, data: string | Buffer, ttl = 300): ResourceRecord => ({
  name: nameFromText(name),
  type: TYPE[type],
  class: CLASS.IN,
  ttl,
  data: typeof data === "string" ? parseRecordData(TYPE[type], data) : data,
});

export interface SignOptions {
  inception?: number;
  expiration?: number;
  /** Sign as if from this wildcard owner (labels field). */
  labels?: number;
}

export class TestZone {
  readonly ksk = makeKey(257);
  readonly zsk = makeKey(256);
  readonly apex: Name;

  constructor(readonly origin: string) {
    this.apex = nameFromText(origin);
  }

  dnskeys(): ResourceRecord[] {
    return [rr(this.origin, "DNSKEY", this.ksk.data), rr(this.origin, "DNSKEY", this.zsk.data)];
  }

  /** The DS record for the KSK (SHA-256), as a parent would publish it. */
  ds(): ResourceRecord {
    const digest = createHash("sha256").update(lowerName(this.apex)).update(this.ksk.data).digest();
    return rr(this.origin, "DS", Buffer.concat([Buffer.from([this.ksk.tag >> 8, this.ksk.tag & 0xff, 13, 2]), digest]));
  }

  dsText(): string {
    const d = this.ds().data;
    return `${this.origin} IN DS ${d.readUInt16BE(0)} 13 2 ${d.subarray(4).toString("hex")}`;
  }

  /** An RRSIG over the RRset, by the ZSK (or the KSK for the DNSKEY set). */
  sign(rrset: ResourceRecord[], opts: SignOptions = {}): ResourceRecord {
    const first = rrset[0]!;
    const key = first.type === TYPE.DNSKEY ? this.ksk : this.zsk;
    const now = Math.floor(Date.now() / 1000);
    const head = Buffer.alloc(18);
    head.writeUInt16BE(first.type, 0);
    head[2] = 13;
    head[3] = opts.labels ?? labelCount(first.name);
    head.writeUInt32BE(first.ttl, 4);
    head.writeUInt32BE((opts.expiration ?? now + 3600) >>> 0, 8);
    head.writeUInt32BE((opts.inception ?? now - 3600) >>> 0, 12);
    head.writeUInt16BE(key.tag, 16);
    const unsigned = Buffer.concat([head, this.apex]);
    const sig = sign("sha256", signedData(parseRrsig(unsigned), rrset), { key: key.private, dsaEncoding: "ieee-p1363" });
    return { name: first.name, type: TYPE.RRSIG, class: CLASS.IN, ttl: first.ttl, data: Buffer.concat([unsigned, sig]) };
  }

  /** The RRset followed by its signature. */
  signed(rrset: ResourceRecord[], opts?: SignOptions): ResourceRecord[] {
    return [...rrset, this.sign(rrset, opts)];
  }

  /** NSEC records for these owner names (each with its types), in canonical order, signed. */
  nsecChain(owners: Record<string, (keyof typeof TYPE)[]>): ResourceRecord[] {
    const names = Object.keys(owners)
      .map((n) => nameFromText(n))
      .sort(canonicalCompare);
    const out: ResourceRecord[] = [];
    names.forEach((n, i) => {
      const next = names[(i + 1) % names.length]!;
      const types = [...owners[nameToText(n)]!.map((t) => TYPE[t]), TYPE.RRSIG, TYPE.NSEC];
      out.push(...this.signed([{ name: n, type: TYPE.NSEC, class: CLASS.IN, ttl: 300, data: Buffer.concat([next, encodeTypeBitmap(types)]) }]));
    });
    return out;
  }
}

/** The NSEC records (with their RRSIGs) at or covering a name, picked from a chain. */
export function nsecFor(chain: ResourceRecord[], owners: string[]): ResourceRecord[] {
  const wanted = new Set(owners.map((o) => nameKey(nameFromText(o))));
  return chain.filter((r) => wanted.has(nameKey(r.name)));
}
