// The managed dnsmasq's config: DHCPv4 pools and reservations (and, with the IPv6 kinds, RA and DHCPv6).
// Each section is a function of the active config, so adding a service is one entry in SECTIONS.
import { join } from "node:path";
import {
  DNSMASQ,
  dnsOption,
  dnsmasqOption,
  durationMs,
  poolOf,
  reservationServer,
  routerOption,
  staticAddressOf,
  type ConfigView,
  type DHCPv4ReservationSpec,
  type DHCPv4ServerSpec,
  type DHCPv6ServerSpec,
} from "@routerd/api";
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
    const pool = poolOf(s);
    const router = routerOption(view, s);
    const dns = dnsOption(view, s);
    const lines = [
      `# DHCPv4Server/${r.metadata.name}`,
      `interface=${ifname}`,
      `dhcp-range=set:${t},${pool.start},${pool.end},${netmask(own?.prefixLength ?? 24)},${seconds(pool.leaseTime)}`,
      // An empty option sends none rather than dnsmasq's own address.
      `dhcp-option=tag:${t},option:router${router ? `,${router}` : ""}`,
    ];
    if (dns.length) lines.push(`dhcp-option=tag:${t},option:dns-server,${dns.join(",")}`);
    else lines.push(`dhcp-option=tag:${t},option:dns-server`);
    if (s.domain) lines.push(`dhcp-option=tag:${t},option:domain-name,${s.domain}`);
    if (s.ntpServers.length) lines.push(`dhcp-option=tag:${t},option:ntp-server,${s.ntpServers.join(",")}`);
    for (const o of s.options) lines.push(`dhcp-option=tag:${t},${dnsmasqOption(o)}`);
    for (const res of view.all<DHCPv4ReservationSpec>("DHCPv4Reservation").filter((x) => reservationServer(view, x) === r)) {
      const h = res.spec;
      // Options for this host only: the host line sets a tag of its own.
      const hostTag = h.options.length ? `set:${tag(`host-${res.metadata.name}`)},` : "";
      const lease = h.leaseTime ? `,${seconds(h.leaseTime)}` : "";
      lines.push(`# DHCPv4Reservation/${res.metadata.name}`, `dhcp-host=${h.macAddress},${hostTag}${h.ipAddress}${h.hostname ? `,${h.hostname}` : ""}${lease}`);
      for (const o of h.options) lines.push(`dhcp-option=tag:${tag(`host-${res.metadata.name}`)},${dnsmasqOption(o)}`);
    }
    return lines;
  });

/** One function per LAN service; each returns its own lines. */
export const SECTIONS: Section[] = [dhcpv4, ipv6LanSection];

export function renderDnsmasqConfig(ctx: DnsmasqContext): string {
  const body = SECTIONS.flatMap((s) => s(ctx));
  // Global in dnsmasq: on unless a DHCPv4Server asks for it off.
  const servers = ctx.view.all<DHCPv4ServerSpec>("DHCPv4Server");
  const v6 = ctx.view.all<DHCPv6ServerSpec>("DHCPv6Server");
  return [
    "# routerd's LAN services. DNS is not this dnsmasq's job: port=0.",
    "port=0",
    "bind-dynamic",
    "no-resolv",
    "no-hosts",
    ...(servers.every((s) => s.spec.authoritative) ? ["dhcp-authoritative"] : []),
    ...(servers.every((s) => s.spec.logDHCP) && v6.every((s) => s.spec.logDHCP) ? ["log-dhcp"] : []),
    ...(v6.some((s) => s.spec.rapidCommit) ? ["dhcp-rapid-commit"] : []),
    `dhcp-leasefile=${join(ctx.stateDir, DNSMASQ.daemon, DNSMASQ.instance, "leases")}`,
    ...body,
    "",
  ].join("\n");
}
