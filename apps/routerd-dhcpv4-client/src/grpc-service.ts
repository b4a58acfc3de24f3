// routerd.dhcpv4.v1.Dhcpv4: the reporter's view mapped to the generated types.
import type { ClientState, Dhcpv4Server, Lease } from "@routerd/rpc/gen/routerd/dhcpv4/v1/dhcpv4";
import type { DhcpLease } from "./lease.js";
import type { LeaseView } from "./lease-reporter.js";

const at = (ms: number | null) => (ms === null ? undefined : new Date(ms));

export function toProtoLease(l: DhcpLease): Lease {
  return {
    address: l.address,
    prefixLength: l.prefixLength,
    subnetMask: l.subnetMask,
    serverId: l.serverId,
    routers: l.routers,
    classlessRoutes: l.classlessRoutes.map((r) => ({ destination: r.destination, prefixLength: r.prefixLength, gateway: r.gateway })),
    dnsServers: l.dnsServers,
    domainName: l.domainName ?? "",
    hostname: l.hostname ?? "",
    mtu: l.mtu ?? 0,
    broadcastAddress: l.broadcastAddress ?? "",
    ntpServers: l.ntpServers,
    leaseTime: l.leaseTime,
    renewalTime: l.renewalTime,
    rebindingTime: l.rebindingTime,
    acquiredAt: new Date(l.acquiredAt),
    renewAt: at(l.renewAt),
    rebindAt: at(l.rebindAt),
    expiresAt: at(l.expiresAt),
  };
}

export function toProtoClientState(v: LeaseView): ClientState {
  return {
    phase: v.phase,
    state: v.state,
    interface: v.interface,
    hardwareAddress: v.hardwareAddress,
    clientId: v.clientId,
    held: v.held,
    ...(v.lease ? { lease: toProtoLease(v.lease) } : {}),
    resumed: v.resumed,
    lastEvent: v.lastEvent,
    ...(v.lastEventAt !== undefined ? { lastEventAt: new Date(v.lastEventAt) } : {}),
  };
}

export function dhcpv4Server(view: () => LeaseView): Dhcpv4Server {
  return {
    getLease(_call, callback) {
      callback(null, { client: toProtoClientState(view()) });
    },
  };
}
