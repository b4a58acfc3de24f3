// Local authoritative data: every configured DNSZone (records and DHCP names) compiled into one lookup
// structure, rebuilt whole when anything changes. Answers follow RFC 1034 §4.3.2 for a server
// authoritative for the zone: the records, CNAME chains through local names, NODATA (NOERROR, SOA) for a
// name without that type or an empty non-terminal, NXDOMAIN with SOA for a name that does not exist.
// PTR records for every A/AAAA record are synthesized into the configured reverse zones, or into a zone of
// their own when no reverse zone covers them.
import { CLASS, RCODE, TYPE } from "../wire/constants.js";
import type { ResourceRecord } from "../wire/message.js";
import { nameFromText, nameKey, stripLabels, type Name } from "../wire/name.js";
import { rdataFirstName } from "../wire/rdata.js";
import { reverseName } from "./reverse.js";

export interface ZoneRecord {
  name: Name;
  type: number;
  ttl: number;
  data: Buffer;
}

export interface ZoneDefinition {
  /** The zone apex. */
  zone: Name;
  /** TTL of records without their own, and of the SOA and negative answers. */
  ttl: number;
  records: ZoneRecord[];
  /** Reverse zones this zone's addresses get PTR records in. */
  reverseZones: Name[];
}

export interface ZoneAnswer {
  rcode: number;
  answers: ResourceRecord[];
  authorities: ResourceRecord[];
  /** A CNAME chain left the local zones here: the rest is the forwarder's job. */
  chase?: Name;
}

interface CompiledZone {
  apex: Name;
  soa: ResourceRecord;
}

const MAX_CHAIN = 12;
const SOA_MNAME = nameFromText("localhost.");
const SOA_RNAME = nameFromText("nobody.invalid.");

function soaRecord(apex: Name, ttl: number, serial: number): ResourceRecord {
  const nums = Buffer.alloc(20);
  [serial >>> 0, 3600, 1200, 604800, ttl].forEach((v, i) => nums.writeUInt32BE(v, i * 4));
  return { name: apex, type: TYPE.SOA, class: CLASS.IN, ttl, data: Buffer.concat([SOA_MNAME, SOA_RNAME, nums]) };
}

export class ZoneStore {
  private readonly zones = new Map<string, CompiledZone>();
  private readonly nodes = new Map<string, Map<number, ResourceRecord[]>>();
  private readonly nonTerminals = new Set<string>();
  /** Records per zone apex key, for status. */
  readonly recordCounts = new Map<string, number>();

  constructor(defs: readonly ZoneDefinition[], serial = Math.floor(Date.now() / 1000)) {
    for (const d of defs) this.zones.set(nameKey(d.zone), { apex: d.zone, soa: soaRecord(d.zone, d.ttl, serial) });
    const reverse: { zone: Name; ttl: number }[] = defs.flatMap((d) => d.reverseZones.map((z) => ({ zone: z, ttl: d.ttl })));
    for (const r of reverse) {
      const key = nameKey(r.zone);
      if (!this.zones.has(key)) this.zones.set(key, { apex: r.zone, soa: soaRecord(r.zone, r.ttl, serial) });
    }
    for (const d of defs) {
      let count = 0;
      for (const r of d.records) {
        if (this.add(r)) count++;
        if (r.type !== TYPE.A && r.type !== TYPE.AAAA) continue;
        const ptr = reverseName(r.type, r.data);
        if (this.has(ptr, TYPE.PTR)) continue;
        if (this.zoneOf(ptr) === undefined) this.zones.set(nameKey(ptr), { apex: ptr, soa: soaRecord(ptr, d.ttl, serial) });
        this.add({ name: ptr, type: TYPE.PTR, ttl: r.ttl, data: r.name });
      }
      this.recordCounts.set(nameKey(d.zone), count);
    }
  }

  private has(name: Name, type: number): boolean {
    return this.nodes.get(nameKey(name))?.has(type) ?? false;
  }

  /** Adds a record unless it duplicates one; false when it was not added. */
  private add(r: ZoneRecord): boolean {
    const key = nameKey(r.name);
    const zone = this.zoneOf(r.name);
    if (zone === undefined) return false;
    let node = this.nodes.get(key);
    if (node === undefined) this.nodes.set(key, (node = new Map()));
    const rrset = node.get(r.type) ?? [];
    if (rrset.some((x) => x.data.equals(r.data))) return false;
    // One TTL per RRset (RFC 2181 §5.2): the first record's.
    rrset.push({ name: r.name, type: r.type, class: CLASS.IN, ttl: rrset[0]?.ttl ?? r.ttl, data: r.data });
    node.set(r.type, rrset);
    for (let up = stripLabels(r.name, 1); up.length > zone.apex.length; up = stripLabels(up, 1)) this.nonTerminals.add(nameKey(up));
    return true;
  }

  /** The closest enclosing local zone. */
  zoneOf(name: Name): CompiledZone | undefined {
    for (let n = name; ; n = stripLabels(n, 1)) {
      const z = this.zones.get(nameKey(n));
      if (z !== undefined) return z;
      if (n.length <= 1) return undefined;
    }
  }

  get zoneCount(): number {
    return this.zones.size;
  }

  /** The authoritative answer, or undefined when no local zone holds the name. */
  lookup(qname: Name, qtype: number): ZoneAnswer | undefined {
    let zone = this.zoneOf(qname);
    if (zone === undefined) return undefined;
    const answers: ResourceRecord[] = [];
    let name = qname;
    for (let hop = 0; hop < MAX_CHAIN; hop++) {
      const key = nameKey(name);
      const node = this.nodes.get(key);
      const apex = nameKey(zone.apex) === key;
      if (apex && qtype === TYPE.SOA) return { rcode: RCODE.NOERROR, answers: [...answers, zone.soa], authorities: [] };
      if (node === undefined) {
        if (apex || this.nonTerminals.has(key)) return this.negative(RCODE.NOERROR, answers, zone);
        return this.negative(RCODE.NXDOMAIN, answers, zone);
      }
      const rrset = node.get(qtype);
      if (rrset !== undefined) return { rcode: RCODE.NOERROR, answers: [...answers, ...rrset], authorities: [] };
      const cname = node.get(TYPE.CNAME);
      if (cname === undefined || cname[0] === undefined) return this.negative(RCODE.NOERROR, answers, zone);
      answers.push(cname[0]);
      const target = rdataFirstName(TYPE.CNAME, cname[0].data)!;
      const next = this.zoneOf(target);
      if (next === undefined) return { rcode: RCODE.NOERROR, answers, authorities: [], chase: target };
      zone = next;
      name = target;
    }
    // A CNAME loop: the chain so far, and SERVFAIL as resolvers do.
    return { rcode: RCODE.SERVFAIL, answers: [], authorities: [] };
  }

  private negative(rcode: number, answers: ResourceRecord[], zone: CompiledZone): ZoneAnswer {
    return { rcode, answers, authorities: [zone.soa] };
  }

  /** Every record (for `routerctl dns` and status), zone by zone. */
  *records(): IterableIterator<ResourceRecord> {
    for (const node of this.nodes.values()) for (const rrset of node.values()) yield* rrset;
  }

  /** The name lies in some local zone. */
  covers(name: Name): boolean {
    return this.zoneOf(name) !== undefined;
  }
}
