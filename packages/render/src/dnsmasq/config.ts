// The managed dnsmasq's config: DHCPv4 pools and reservations (and, with the IPv6 kinds, RA and DHCPv6).
// Each section is a function of the active config, so adding a service is one entry in SECTIONS.
import { join } from "node:path";
import { DNSMASQ, durationMs, staticAddressOf, type ConfigView, type DHCPv4ReservationSpec, type DHCPv4ServerSpec } from "@routerd/api";
import { ipv6LanSection } from "./ipv6-lan.js";

export interface DnsmasqContext {
  view: ConfigView;
  stateDir: string;
}

type Section = (ctx: DnsmasqContext) => string[];

const tag = (name: string) => `rd_${name.replace(/-/g, "_")}`;
const netmask = (len: number) => [24, 16, 8, 0].map((s) => ((len === 0 ? 0 : (0xffffffff << (32 - len)) >>> 0) >>> s) & 255).join(".");
const seconds = (d: string) => `${Math.floor(durationMs(d) / 1000)}`;

const dhcpv4: Section = ({ view }) =>
  view.all<DHCPv4ServerSpec>("DHCPv4Server").flatMap((r) => {
    const s = r.spec;
    const ifname = view.ifname(s.interface);
    const own = staticAddressOf(view, s.interface);
    const t = tag(r.metadata.name);
    const lines = [
      `# DHCPv4Server/${r.metadata.name}`,
      `interface=${ifname}`,
      `dhcp-range=set:${t},${s.addressPool.start},${s.addressPool.end},${netmask(own?.prefixLength ?? 24)},${seconds(s.addressPool.leaseTime)}`,
      `dhcp-option=tag:${t},option:router,${s.gateway ?? own?.address ?? ""}`,
    ];
    if (s.dnsServers.length) lines.push(`dhcp-option=tag:${t},option:dns-server,${s.dnsServers.join(",")}`);
    else lines.push(`dhcp-option=tag:${t},option:dns-server`); // send none rather than dnsmasq's own address
    if (s.domain) lines.push(`dhcp-option=tag:${t},option:domain-name,${s.domain}`);
    if (s.ntpServers.length) lines.push(`dhcp-option=tag:${t},option:ntp-server,${s.ntpServers.join(",")}`);
    for (const o of s.options) lines.push(`dhcp-option=tag:${t},${o.code},${o.value}`);
    for (const res of view.all<DHCPv4ReservationSpec>("DHCPv4Reservation").filter((x) => x.spec.server === r.metadata.name)) {
      lines.push(`# DHCPv4Reservation/${res.metadata.name}`, `dhcp-host=${res.spec.macAddress},${res.spec.ipAddress}${res.spec.hostname ? `,${res.spec.hostname}` : ""}`);
    }
    return lines;
  });

/** One function per LAN service; each returns its own lines. */
export const SECTIONS: Section[] = [dhcpv4, ipv6LanSection];

export function renderDnsmasqConfig(ctx: DnsmasqContext): string {
  const body = SECTIONS.flatMap((s) => s(ctx));
  return [
    "# routerd's LAN services. DNS is not this dnsmasq's job: port=0.",
    "port=0",
    "bind-dynamic",
    "no-resolv",
    "no-hosts",
    "dhcp-authoritative",
    "log-dhcp",
    `dhcp-leasefile=${join(ctx.stateDir, DNSMASQ.daemon, DNSMASQ.instance, "leases")}`,
    ...body,
    "",
  ].join("\n");
}
