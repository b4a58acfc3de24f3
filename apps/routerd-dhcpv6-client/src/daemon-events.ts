// Client events as daemon-kit events: dotted topics routerd and routerctl watch, flat string attributes.
import type { ClientEvent } from "./events.js";
import { prefixKey, type Lease } from "./lease.js";

export interface DaemonEventInput {
  topic: string;
  message: string;
  severity: "info" | "warning";
  attributes: Record<string, string>;
}

const prefixesOf = (lease: Lease) => lease.prefixes.map(prefixKey).join(",");
const addressesOf = (lease: Lease) => lease.addresses.map((a) => a.address).join(",");

function leaseAttributes(lease: Lease): Record<string, string> {
  const p = lease.prefixes[0];
  return {
    prefixes: prefixesOf(lease),
    addresses: addressesOf(lease),
    ...(p ? { preferredLifetime: String(p.preferredLifetime), validLifetime: String(p.validLifetime) } : {}),
    t1: String(lease.t1),
    t2: String(lease.t2),
    server: lease.serverId,
  };
}

/** Topic per client event type; "information" has no prefix in it, so it is not a prefix.* topic. */
export const EVENT_TOPICS: Record<ClientEvent["type"], string> = {
  acquired: "dhcpv6.prefix.acquired",
  renewed: "dhcpv6.prefix.renewed",
  changed: "dhcpv6.prefix.changed",
  lost: "dhcpv6.prefix.lost",
  expired: "dhcpv6.prefix.expired",
  released: "dhcpv6.prefix.released",
  information: "dhcpv6.information",
};

export function daemonEvent(e: ClientEvent): DaemonEventInput {
  const topic = EVENT_TOPICS[e.type];
  switch (e.type) {
    case "acquired":
      return { topic, severity: "info", message: `acquired ${prefixesOf(e.lease) || addressesOf(e.lease)}`, attributes: leaseAttributes(e.lease) };
    case "renewed":
      return { topic, severity: "info", message: `renewed ${prefixesOf(e.lease) || addressesOf(e.lease)} (${e.via})`, attributes: { ...leaseAttributes(e.lease), via: e.via } };
    case "changed":
      return {
        topic,
        severity: "warning",
        message: `changed: +${e.added.join(",") || "-"} -${e.removed.join(",") || "-"}`,
        attributes: { ...leaseAttributes(e.lease), added: e.added.join(","), removed: e.removed.join(",") },
      };
    case "lost":
      return { topic, severity: "warning", message: `lost ${e.removed.join(",")}: ${e.reason}`, attributes: { removed: e.removed.join(","), reason: e.reason } };
    case "expired":
      return { topic, severity: "warning", message: `expired ${e.removed.join(",")}`, attributes: { removed: e.removed.join(",") } };
    case "released":
      return { topic, severity: "info", message: `released ${e.removed.join(",")}`, attributes: { removed: e.removed.join(",") } };
    case "information": {
      const i = e.information;
      return {
        topic,
        severity: "info",
        message: `DNS ${i.dnsServers.join(",") || "-"}, search ${i.domainSearch.join(",") || "-"}`,
        attributes: { dnsServers: i.dnsServers.join(","), domainSearch: i.domainSearch.join(","), sntpServers: i.sntpServers.join(","), aftrName: i.aftrName ?? "" },
      };
    }
  }
}
