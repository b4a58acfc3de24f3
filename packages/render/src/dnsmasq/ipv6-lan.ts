// Router advertisements and DHCPv6 per LAN interface (IPv6RouterAdvertisement, DHCPv6Server,
// DHCPv6Information). The prefixes are never written here: dnsmasq constructs them from the interface's
// global /64s ("constructor:<ifname>") and announces each with that address's own lifetimes. So a new,
// renewed, changed or lost delegation changes only the address on the interface, never this text, and
// dnsmasq keeps running: when an address goes away it announces that prefix as deprecated (preferred
// lifetime 0, router lifetime 0 once nothing else is left, RFC 7084 L-13), and with no global /64 it
// sends no router advertisement at all.
import {
  delegatedInformation,
  dhcpv6DnsServers,
  durationMs,
  poolLeaseTime,
  ipv6LanServices,
  type ConfigView,
  type IPv6RouterAdvertisementSpec,
  type Ipv6LanServices,
} from "@routerd/api";

const seconds = (d: string) => Math.floor(durationMs(d) / 1000);
const tagOf = (ifname: string) => `rd6_${ifname.replace(/[^A-Za-z0-9]/g, "_")}`;
const union = (...lists: string[][]) => [...new Set(lists.flat())];

/** The dhcp-range line: its mode decides the A/M/O flags and whether DHCPv6 runs at all. */
function rangeLine(lan: Ipv6LanServices, ifname: string, tag: string): string {
  const pool = lan.server?.spec.addressPool;
  const head = `dhcp-range=set:${tag}`;
  const limit = lan.ra.spec.lifetimes.prefix ?? lan.ra.spec.validLifetime;
  const cap = limit !== undefined ? `,${seconds(limit)}` : "";
  switch (lan.mode) {
    case "ra-only":
    case "ra-stateless":
      return `${head},::,constructor:${ifname},${lan.mode},64${cap}`;
    case "stateful":
      return `${head},${pool!.start},${pool!.end},constructor:${ifname},64,${seconds(poolLeaseTime(lan.server!.spec))}`;
    case "both":
      return `${head},${pool!.start},${pool!.end},constructor:${ifname},slaac,64,${seconds(poolLeaseTime(lan.server!.spec))}`;
  }
}

/** ra-param=<if>,[mtu:<n>,][high|low,]<interval>,<router lifetime> */
function raParam(spec: IPv6RouterAdvertisementSpec, ifname: string): string {
  const parts = [ifname];
  if (spec.mtu !== undefined) parts.push(`mtu:${spec.mtu}`);
  if (spec.preference !== "medium") parts.push(spec.preference);
  parts.push(String(seconds(spec.interval)), String(seconds(spec.lifetimes.router)));
  return `ra-param=${parts.join(",")}`;
}

function lanLines(view: ConfigView, lan: Ipv6LanServices): string[] {
  const ifname = view.ifname(lan.ra.spec.interface);
  const tag = tagOf(ifname);
  const owners = [lan.ra, lan.server, lan.information].filter((r) => r !== undefined).map((r) => `${r.kind}/${r.metadata.name}`);
  const info = lan.information ? delegatedInformation(view, lan.information.spec) : { dnsServers: [], domainSearch: [], sntpServers: [] };
  const dns = union(lan.ra.spec.rdnss, lan.server ? dhcpv6DnsServers(view, lan.server.spec) : [], info.dnsServers);
  const sntp = union(lan.server?.spec.sntpServers ?? [], info.sntpServers);
  const search = union(lan.ra.spec.dnssl, lan.server?.spec.domainSearch ?? [], info.domainSearch);
  const lines = [`# ${owners.join(", ")}`, `interface=${ifname}`, rangeLine(lan, ifname, tag)];
  // A range without ra-* or slaac gets router advertisements only with enable-ra.
  if (lan.mode === "stateful") lines.push("enable-ra");
  lines.push(raParam(lan.ra.spec, ifname));
  // Tagged with the range: once no prefix is left on the interface they are not announced either.
  if (dns.length) lines.push(`dhcp-option=tag:${tag},option6:dns-server,${dns.map((a) => `[${a}]`).join(",")}`);
  if (search.length) lines.push(`dhcp-option=tag:${tag},option6:domain-search,${search.join(",")}`);
  if (sntp.length) lines.push(`dhcp-option=tag:${tag},option6:sntp-server,${sntp.map((a) => `[${a}]`).join(",")}`);
  return lines;
}

export function ipv6LanSection({ view }: { view: ConfigView }): string[] {
  return view.all<IPv6RouterAdvertisementSpec>("IPv6RouterAdvertisement").flatMap((ra) => lanLines(view, ipv6LanServices(view, ra)));
}
