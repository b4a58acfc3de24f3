// routerd.dhcpv6.v1.Dhcpv6: the client's binding mapped to the generated types.
import type { Binding, Dhcpv6Server } from "@routerd/rpc/gen/routerd/dhcpv6/v1/dhcpv6";
import { INFINITY } from "./constants.js";
import { expiresAt, type Information, type Lease } from "./lease.js";
import type { Withdrawn } from "./status-view.js";

export interface BindingView {
  phase: string;
  interface: string;
  duid: string;
  localAddress: string | undefined;
  lease: Lease | undefined;
  information: Information | undefined;
  withdrawn: readonly Withdrawn[];
}

const end = (e: { validLifetime: number; obtainedAt: number }) => (e.validLifetime === INFINITY ? undefined : new Date(expiresAt(e)));

export function toProtoBinding(v: BindingView): Binding {
  const l = v.lease;
  const info = l?.information ?? v.information;
  return {
    phase: v.phase,
    interface: v.interface,
    clientDuid: v.duid,
    localAddress: v.localAddress ?? "",
    serverDuid: l?.serverId ?? "",
    serverAddress: l?.serverAddress ?? "",
    t1: l?.t1 ?? 0,
    t2: l?.t2 ?? 0,
    ...(l ? { updatedAt: new Date(l.updatedAt) } : {}),
    prefixes: (l?.prefixes ?? []).map((p) => ({
      prefix: p.prefix,
      prefixLength: p.length,
      preferredLifetime: p.preferredLifetime,
      validLifetime: p.validLifetime,
      obtainedAt: new Date(p.obtainedAt),
      expiresAt: end(p),
    })),
    addresses: (l?.addresses ?? []).map((a) => ({
      address: a.address,
      preferredLifetime: a.preferredLifetime,
      validLifetime: a.validLifetime,
      obtainedAt: new Date(a.obtainedAt),
      expiresAt: end(a),
    })),
    ...(info
      ? {
          information: {
            dnsServers: info.dnsServers,
            domainSearch: info.domainSearch,
            sntpServers: info.sntpServers,
            aftrName: info.aftrName ?? "",
            refreshTime: info.refreshTime ?? 0,
          },
        }
      : {}),
    withdrawn: v.withdrawn.map((w) => ({ prefix: w.prefix, prefixLength: w.prefixLength, until: new Date(w.until) })),
  };
}

export function dhcpv6Server(view: () => BindingView): Dhcpv6Server {
  return {
    getLease: (_call, callback) => callback(null, { binding: toProtoBinding(view()) }),
  };
}
