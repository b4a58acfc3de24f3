// Zone configs (plus the DHCP names known now) to the zone store's definitions. Configured records win over
// DHCP names: a client calling itself "router" does not take over router.lan.
import type { ZoneConfig } from "../config/config.js";
import { TYPE, typeFromName } from "../wire/constants.js";
import { childName, nameFromText, nameKey, type Name } from "../wire/name.js";
import type { DhcpName } from "./dhcp-leases.js";
import { ipv4Bytes, ipv6Bytes, parseRecordData } from "./record-text.js";
import type { ZoneDefinition, ZoneRecord } from "./zone-store.js";

export function compileZone(z: ZoneConfig, dhcp: readonly DhcpName[] = []): ZoneDefinition {
  const records: ZoneRecord[] = z.records.map((r) => {
    const type = typeFromName(r.type)!;
    return { name: nameFromText(r.name), type, ttl: r.ttl ?? z.ttl, data: parseRecordData(type, r.data) };
  });
  const configured = new Set(records.map((r) => nameKey(r.name)));
  if (z.dhcp !== undefined) {
    const suffix: Name = nameFromText(z.dhcp.suffix);
    for (const d of dhcp) {
      let name: Name;
      try {
        name = childName(d.hostname, suffix);
      } catch {
        continue;
      }
      if (configured.has(nameKey(name))) continue;
      records.push(
        d.family === 4
          ? { name, type: TYPE.A, ttl: z.dhcp.ttl, data: ipv4Bytes(d.address) }
          : { name, type: TYPE.AAAA, ttl: z.dhcp.ttl, data: ipv6Bytes(d.address) },
      );
    }
  }
  return { zone: nameFromText(z.zone), ttl: z.ttl, records, reverseZones: z.reverseZones.map((n) => nameFromText(n)) };
}
