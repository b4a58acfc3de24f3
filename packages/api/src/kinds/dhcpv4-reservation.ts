import { formats, ipv4InPrefix } from "../formats.js";
import { API_GROUPS, defineKind } from "../kind.js";
import { dnsmasqIntents, staticAddressOf } from "../lan-services.js";
import { t, type Infer } from "../schema.js";
import type { DHCPv4ServerSpec } from "./dhcpv4-server.js";

export const dhcpv4ReservationSpec = t.object({
  server: t.ref("DHCPv4Server"),
  macAddress: formats.mac(),
  ipAddress: formats.ipv4(),
  hostname: t.optional(t.string({ pattern: /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/, patternHint: "a single host name label" })),
});

export type DHCPv4ReservationSpec = Infer<typeof dhcpv4ReservationSpec>;

export const dhcpv4ReservationKind = defineKind<DHCPv4ReservationSpec>({
  apiVersion: API_GROUPS.net,
  kind: "DHCPv4Reservation",
  description: "A fixed address (and host name) for one MAC address on a DHCPv4Server.",
  class: "lan-service",
  contract: { type: "ArtifactKinds", artifactKinds: ["file", "routerd.daemon"] },
  supportsWhen: false,
  spec: dhcpv4ReservationSpec,
  status: (res) => ({ fields: { address: res.spec.ipAddress, hostname: res.spec.hostname } }),
  provides: { address: "string", hostname: "string" },
  check(res, ctx) {
    const server = ctx.find<DHCPv4ServerSpec>("DHCPv4Server", res.spec.server);
    const own = server && staticAddressOf(ctx, server.spec.interface);
    if (own && !ipv4InPrefix(res.spec.ipAddress, { address: own.address, length: own.prefixLength })) {
      ctx.error(["ipAddress"], `${res.spec.ipAddress} is outside the server's subnet ${own.address}/${own.prefixLength}`);
    }
    for (const other of ctx.all<DHCPv4ReservationSpec>("DHCPv4Reservation")) {
      if (other.index >= res.index || other.spec.server !== res.spec.server) continue;
      if (other.spec.macAddress === res.spec.macAddress) ctx.error(["macAddress"], `already reserved by DHCPv4Reservation/${other.metadata.name}`);
      if (other.spec.ipAddress === res.spec.ipAddress) ctx.error(["ipAddress"], `already reserved by DHCPv4Reservation/${other.metadata.name}`);
    }
  },
  intents: (res) => dnsmasqIntents(res.owner),
});
