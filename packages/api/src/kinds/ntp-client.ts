// The host's NTP client: a routerd-owned block in the provider's drop-in or sources file (never the whole
// file), with servers from the config or from a DHCP lease's status. The provider reloads (chrony) or
// restarts (timesyncd, ntpd) only when that block changed.
import { artifactNames, type ArtifactIntent } from "@routerd/resource";
import { API_GROUPS, defineKind } from "../kind.js";
import { t, type Infer } from "../schema.js";
import { fromSources } from "../status-source.js";
import type { DHCPv6InformationSpec } from "./dhcpv6-information.js";

export const NTP_PROVIDERS = ["systemd-timesyncd", "chrony", "ntpd"] as const;
export type NtpProvider = (typeof NTP_PROVIDERS)[number];

/** Where each provider reads routerd's block, and what makes it take a changed block. */
export const NTP_PROVIDER_FILES: Record<NtpProvider, { path: string; reload: string }> = {
  // timesyncd reads every *.conf in its drop-in directory; it has no reload, so it is restarted.
  "systemd-timesyncd": { path: "/etc/systemd/timesyncd.conf.d/routerd.conf", reload: "systemd-timesyncd" },
  // Debian's chrony.conf has `sourcedir /etc/chrony/sources.d`: `chronyc reload sources` takes a change live.
  chrony: { path: "/etc/chrony/sources.d/routerd.sources", reload: "chrony" },
  // ntpsec (Debian's ntpd) has no include directory by default: a block in its main file.
  ntpd: { path: "/etc/ntpsec/ntp.conf", reload: "ntpd" },
};

const server = () =>
  t.string({ pattern: /^([A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|[0-9a-fA-F:.]+)$/, patternHint: "a host name or an IP address" });

export const ntpClientSpec = t.object({
  provider: t.withDefault(t.enum(...NTP_PROVIDERS).describe("the NTP daemon the host runs"), "systemd-timesyncd"),
  servers: t.withDefault(t.array(server(), { unique: true }).describe("NTP servers (host names or addresses)"), []),
  serverFrom: t.optional(fromSources({ format: "ip", into: "servers" }).describe("more servers from status, e.g. {resource: DHCPv4Client/wan, field: ntpServers} or {resource: DHCPv6PrefixDelegation/wan, field: sntpServers}")),
  fallbackServers: t.withDefault(t.array(server(), { unique: true }).describe("used only while no server is known (timesyncd's FallbackNTP)"), []),
  interface: t.optional(t.interfaceRef().describe("accepted for the original's configs; the providers here do not bind to an interface")),
  managed: t.withDefault(t.bool().describe("false: routerd only observes the provider's block"), true),
  source: t.withDefault(t.enum("static", "auto", "dhcp", "dhcpv6").describe("where the servers come from (static: servers; dhcp/dhcpv6: serverFrom a DHCP client's status)"), "static"),
});

export type NTPClientSpec = Infer<typeof ntpClientSpec>;

/** The servers the provider is given: the configured and status-sourced ones, else the fallback ones. */
export function ntpServersInUse(spec: NTPClientSpec): { servers: string[]; fallback: boolean } {
  return spec.servers.length ? { servers: spec.servers, fallback: false } : { servers: spec.fallbackServers, fallback: true };
}

/**
 * The NTPClient's status: the servers the provider is given, and where they come from (the original's `source`,
 * named like the spec field): spec.source, or `fallback` while fallbackServers stand in for none known.
 */
export function ntpStatus(spec: NTPClientSpec): { servers: string[]; source: string } {
  const { servers, fallback } = ntpServersInUse(spec);
  return { servers, source: fallback && servers.length ? "fallback" : spec.source };
}

/** The block routerd writes for one NTPClient (pure; golden-tested in @routerd/render's testdata too). */
export function ntpBlock(spec: NTPClientSpec): string {
  if (spec.provider === "systemd-timesyncd") {
    // FallbackNTP is timesyncd's own notion; the other providers get the fallback only while no server is known.
    return ["[Time]", `NTP=${spec.servers.join(" ")}`, `FallbackNTP=${spec.fallbackServers.join(" ")}`].join("\n") + "\n";
  }
  const { servers } = ntpServersInUse(spec);
  return servers.map((s) => `server ${s} iburst`).join("\n") + (servers.length ? "\n" : "");
}

export const ntpClientKind = defineKind<NTPClientSpec>({
  apiVersion: API_GROUPS.system,
  kind: "NTPClient",
  description: "The host's NTP client (systemd-timesyncd, chrony or ntpd): servers from the config or a DHCP lease, in a routerd-owned block of the provider's config.",
  class: "system",
  contract: { type: "ArtifactKinds", artifactKinds: ["file"] },
  supportsWhen: true,
  spec: ntpClientSpec,
  // `source`: where the servers in use come from — spec.source, or `fallback` while the fallback servers stand in.
  status: (res) => ({ fields: ntpStatus(res.spec) }),
  provides: { servers: "stringList", source: "string", updatedAt: "timestamp" },
  check(res, ctx) {
    const s = res.spec;
    if ((s.source === "dhcp" || s.source === "dhcpv6") && !s.serverFrom) {
      const hint = s.source === "dhcp" ? "serverFrom: [{resource: DHCPv4Client/wan, field: ntpServers}]" : "serverFrom: [{resource: DHCPv6PrefixDelegation/wan, field: sntpServers}]";
      ctx.error(["serverFrom"], `source: ${s.source} needs serverFrom naming the DHCP client whose lease brings the servers`, hint);
    }
    if (!s.servers.length && !s.serverFrom && !s.fallbackServers.length) ctx.error(["servers"], "no servers, serverFrom or fallbackServers: the client would have nothing to ask");
    const waiting = (s.serverFrom ?? []).filter((src) => !src.optional);
    if (s.fallbackServers.length && !s.servers.length && waiting.length) {
      // A source without a value keeps the NTPClient Pending (as every *From does): the fallback would never be used.
      const first = waiting[0]!;
      ctx.warn(["fallbackServers"], `never used: until ${first.resource} has ${first.field}, the NTPClient waits (Pending) instead of falling back, and a lease without NTP servers keeps it waiting`, `mark the source optional: serverFrom: [{resource: ${first.resource}, field: ${first.field}, optional: true}]`);
    }
    // A DHCPv6Information on the WAN publishes only what its `request` lists: without sntp-servers it never has
    // sntpServers, and a required source waits for it for ever (an optional one is never used).
    (s.serverFrom ?? []).forEach((src, i) => {
      const [kind, name] = src.resource.split("/");
      if (kind !== "DHCPv6Information" || src.field !== "sntpServers") return;
      const info = ctx.all<DHCPv6InformationSpec>("DHCPv6Information").find((r) => r.metadata.name === name);
      const request = info?.spec.request;
      if (!request || request.includes("sntp-servers")) return;
      const effect = src.optional ? "this source is never used" : "the NTPClient waits (Pending) for ever";
      ctx.warn(["serverFrom", i, "resource"], `${src.resource} requests ${request.join(", ")}, not sntp-servers: it never publishes sntpServers, so ${effect}`, `add sntp-servers to its request: request: [${[...request, "sntp-servers"].join(", ")}]`);
    });
    if (s.interface !== undefined) ctx.warn(["interface"], `provider ${s.provider} is not bound to an interface by routerd; interface has no effect`);
    for (const other of ctx.all<NTPClientSpec>("NTPClient")) {
      if (other.index < res.index && other.spec.provider !== s.provider) {
        ctx.error(["provider"], `NTPClient/${other.metadata.name} uses ${other.spec.provider}; a host runs one NTP client`, `use provider: ${other.spec.provider} here too`);
      }
    }
  },
  intents(res) {
    const s = res.spec;
    const file = NTP_PROVIDER_FILES[s.provider];
    const block = `ntp-${res.metadata.name}`;
    const intent: ArtifactIntent = {
      kind: "file",
      name: artifactNames.fileBlock(file.path, block),
      owner: res.owner,
      action: s.managed ? "ensure" : "observe",
      applyWith: "file-block",
      attributes: s.managed ? { path: file.path, block, content: ntpBlock(s), reload: file.reload } : { path: file.path, block },
    };
    return [intent];
  },
});
