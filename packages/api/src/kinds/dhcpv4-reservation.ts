import { formats, ipv4InPrefix } from "../formats.js";
import { API_GROUPS, defineKind, type ConfigView, type Resource } from "../kind.js";
import { dhcpOptionSpec } from "./dhcp-options.js";
import { dnsmasqIntents, staticAddressOf } from "../lan-services.js";
import { t, type Infer } from "../schema.js";
import type { DHCPv4ServerSpec } from "./dhcpv4-server.js";

export const dhcpv4ReservationSpec = t.object({
  server: t.optional(t.ref("DHCPv4Server").describe("the server (default: the one whose subnet holds ipAddress)")),
  macAddress: formats.mac(),
  ipAddress: formats.ipv4(),
  hostname: t.optional(t.string({ pattern: /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/, patternHint: "a single host name label" })),
  leaseTime: t.optional(formats.duration().describe("lease time for this host (default: the pool's)")),
  options: t.withDefault(t.array(dhcpOptionSpec).describe("DHCP options for this host only"), []),
  scope: t.refused("DHCPv4Server scopes are not supported", "remove scope: a reservation belongs to its server (server: NAME)"),
});

/** The server a reservation belongs to: the one it names, or the only one whose subnet holds its address. */
export function reservationServer(view: ConfigView, res: Resource<DHCPv4ReservationSpec>): Resource<DHCPv4ServerSpec> | undefined {
  const servers = view.all<DHCPv4ServerSpec>("DHCPv4Server");
  if (res.spec.server !== undefined) return servers.find((s) => s.metadata.name === res.spec.server);
  const holding = servers.filter((s) => {
    const own = staticAddressOf(view, s.spec.interface);
    return own && ipv4InPrefix(res.spec.ipAddress, { address: own.address, length: own.prefixLength });
  });
  return holding.length === 1 ? holding[0] : undefined;
}

export type DHCPv4ReservationSpec = Infer<typeof dhcpv4ReservationSpec>;

export const dhcpv4ReservationKind = defineKind<DHCPv4ReservationSpec>({
  apiVersion: API_GROUPS.net,
  kind: "DHCPv4Reservation",
  description: "A fixed address (and host name) for one MAC address on a DHCPv4Server.",
  class: "lan-service",
  contract: { type: "ArtifactKinds", artifactKinds: ["file", "routerd.daemon"] },
  supportsWhen: true,
  spec: dhcpv4ReservationSpec,
  status: (res) => ({ fields: { address: res.spec.ipAddress, hostname: res.spec.hostname } }),
  provides: { address: "string", hostname: "string" },
  check(res, ctx) {
    const server = reservationServer(ctx, res);
    if (!server && res.spec.server === undefined) {
      ctx.error(["ipAddress"], `no single DHCPv4Server serves a subnet holding ${res.spec.ipAddress}`, "name the server (server: NAME)");
      return;
    }
    const own = server && staticAddressOf(ctx, server.spec.interface);
    if (own && !ipv4InPrefix(res.spec.ipAddress, { address: own.address, length: own.prefixLength })) {
      ctx.error(["ipAddress"], `${res.spec.ipAddress} is outside the server's subnet ${own.address}/${own.prefixLength}`);
    }
    for (const other of ctx.all<DHCPv4ReservationSpec>("DHCPv4Reservation")) {
      if (other.index >= res.index || reservationServer(ctx, other) !== server) continue;
      if (other.spec.macAddress === res.spec.macAddress) ctx.error(["macAddress"], `already reserved by DHCPv4Reservation/${other.metadata.name}`);
      if (other.spec.ipAddress === res.spec.ipAddress) ctx.error(["ipAddress"], `already reserved by DHCPv4Reservation/${other.metadata.name}`);
    }
  },
  intents: (res) => dnsmasqIntents(res.owner),
});
