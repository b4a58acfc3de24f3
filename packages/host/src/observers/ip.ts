// Observers built on `ip -j`: links, addresses, routes (all tables), route tables and fwmark rules.
import { MAIN_TABLE, artifactNames, sortNextHops, type NextHop, type ObservedArtifact } from "@routerd/resource";
import { runJson } from "../exec.js";
import type { HostContext } from "../context.js";
import { linkTypeOf } from "../links.js";

interface IpLink {
  ifname: string;
  flags?: string[];
  mtu?: number;
  operstate?: string;
  address?: string;
  link_type?: string;
  master?: string;
  linkinfo?: { info_kind?: string; info_data?: Record<string, unknown> };
  /** `address` differs from `local` on a point-to-point address (the peer). */
  addr_info?: { family: string; local: string; address?: string; prefixlen: number; scope?: string; valid_life_time?: number; preferred_life_time?: number }[];
}

interface IpRoute {
  type?: string;
  nexthops?: { gateway?: string; dev?: string; weight?: number }[];
  dst: string;
  gateway?: string;
  dev?: string;
  table?: string;
  metric?: number;
  protocol?: string;
  scope?: string;
  prefsrc?: string;
}

interface IpRule {
  priority: number;
  fwmark?: string;
  fwmask?: string;
  table?: string;
  suppress_prefixlen?: number;
}

const TABLE_NAMES: Record<string, number> = { main: MAIN_TABLE, local: 255, default: 253, unspec: 0 };

export function tableNumber(table: string | undefined): number {
  if (table === undefined) return MAIN_TABLE;
  return TABLE_NAMES[table] ?? Number(table);
}

/**
 * Every link. `-d` adds the link type and its parameters (for links routerd creates: linkType, linkData in
 * the shape of links.ts), the master it is enslaved to, and for each master the links enslaved to it.
 */
export async function observeLinks(ctx: HostContext): Promise<ObservedArtifact[]> {
  const links = await runJson<IpLink[]>(ctx.runner, "ip", ["-d", "-j", "link", "show"]);
  const members = new Map<string, string[]>();
  for (const l of links) if (l.master) members.set(l.master, [...(members.get(l.master) ?? []), l.ifname].sort());
  return links.map((l) => {
    const kind = l.linkinfo?.info_kind;
    const type = kind ? linkTypeOf(kind) : undefined;
    return {
      kind: "linux.link" as const,
      name: artifactNames.link(l.ifname),
      attributes: {
        ifname: l.ifname,
        adminUp: (l.flags ?? []).includes("UP"),
        mtu: l.mtu,
        operstate: l.operstate,
        mac: l.address,
        ...(kind ? { linkType: kind } : {}),
        ...(type ? { linkData: type.observed(l.linkinfo?.info_data ?? {}) } : {}),
        master: l.master ?? null,
        ...(members.has(l.ifname) ? { members: members.get(l.ifname) } : {}),
      },
    };
  });
}

/** One link as an Interface publishes it (the shape of @routerd/api's LinkFacts). */
export interface LinkFacts {
  ifname: string;
  mac?: string;
  operstate?: string;
  adminUp: boolean;
  ipv4: { address: string; prefixLength: number }[];
  ipv6: { address: string; prefixLength: number; scope?: string }[];
}

/** Every link with its addresses, for the status an Interface publishes (one `ip -j addr`). */
export async function observeLinkFacts(ctx: HostContext): Promise<LinkFacts[]> {
  const links = await runJson<IpLink[]>(ctx.runner, "ip", ["-j", "addr", "show"]);
  return links.map((l) => ({
    ifname: l.ifname,
    ...(l.address ? { mac: l.address } : {}),
    ...(l.operstate ? { operstate: l.operstate } : {}),
    adminUp: (l.flags ?? []).includes("UP"),
    ipv4: (l.addr_info ?? []).filter((a) => a.family === "inet").map((a) => ({ address: a.local, prefixLength: a.prefixlen })),
    ipv6: (l.addr_info ?? []).filter((a) => a.family === "inet6").map((a) => ({ address: a.local, prefixLength: a.prefixlen, ...(a.scope ? { scope: a.scope } : {}) })),
  }));
}

export async function observeAddresses(ctx: HostContext, family: "inet" | "inet6"): Promise<ObservedArtifact[]> {
  const links = await runJson<IpLink[]>(ctx.runner, "ip", ["-j", family === "inet" ? "-4" : "-6", "addr", "show"]);
  const now = Date.now();
  const kind = family === "inet" ? ("linux.ipv4.address" as const) : ("linux.ipv6.address" as const);
  return links.flatMap((l) =>
    (l.addr_info ?? [])
      .filter((a) => a.family === family)
      .map((a) => ({
        kind,
        name: artifactNames.ipv4Address(l.ifname, a.local, a.prefixlen),
        attributes: {
          ifname: l.ifname,
          address: a.local,
          prefixLength: a.prefixlen,
          scope: a.scope,
          ...(a.address && a.address !== a.local ? { peer: a.address } : {}),
          ...(family === "inet6" ? lifetimes(a, now) : {}),
        },
      })),
  );
}

const FOREVER = 0xffffffff;

/** Finite lifetimes as absolute times, so they compare with what routerd asked for however long ago. */
export function lifetimes(a: { valid_life_time?: number; preferred_life_time?: number }, now: number): { validUntil?: string; preferredUntil?: string } {
  const at = (s: number | undefined) => (s === undefined || s === FOREVER ? undefined : new Date(now + s * 1000).toISOString());
  const validUntil = at(a.valid_life_time);
  const preferredUntil = at(a.preferred_life_time);
  return { ...(validUntil ? { validUntil } : {}), ...(preferredUntil ? { preferredUntil } : {}) };
}

/** A multipath route's next hops in a canonical order (intents sort theirs the same way). */
export function observedNextHops(r: IpRoute): { nexthops: NextHop[] } | Record<string, never> {
  if (!r.nexthops?.length) return {};
  return { nexthops: sortNextHops(r.nexthops.filter((h) => h.gateway).map((h) => ({ gateway: h.gateway!, ...(h.dev ? { device: h.dev } : {}), weight: h.weight ?? 1 }))) };
}

export function routeDestination(dst: string): string {
  if (dst === "default") return "0.0.0.0/0";
  return dst.includes("/") ? dst : `${dst}/32`;
}

/** Routes of every table; the local/broadcast table entries are the kernel's and are left out. */
export async function observeRoutes(ctx: HostContext): Promise<ObservedArtifact[]> {
  const routes = await runJson<IpRoute[]>(ctx.runner, "ip", ["-j", "-4", "route", "show", "table", "all"]);
  return routes
    .filter((r) => r.table !== "local" && r.type !== "local" && r.type !== "broadcast")
    .map((r) => {
      const table = tableNumber(r.table);
      const destination = routeDestination(r.dst);
      const metric = r.metric ?? 0;
      return {
        kind: "linux.ipv4.route" as const,
        name: artifactNames.route(table, destination, metric),
        attributes: {
          table,
          destination,
          metric,
          type: r.type ?? "unicast",
          ...(r.gateway ? { gateway: r.gateway } : {}),
          ...(r.dev ? { device: r.dev } : {}),
          ...(r.prefsrc ? { preferredSource: r.prefsrc } : {}),
          ...observedNextHops(r),
          ...(r.protocol ? { protocol: r.protocol } : {}),
        },
      };
    });
}

/** IPv6 routes of every table; local, anycast and multicast entries are the kernel's and are left out. */
export async function observeRoutes6(ctx: HostContext): Promise<ObservedArtifact[]> {
  const routes = await runJson<IpRoute[]>(ctx.runner, "ip", ["-j", "-6", "route", "show", "table", "all"]);
  return routes
    .filter((r) => r.table !== "local" && !["local", "anycast", "multicast"].includes(r.type ?? ""))
    .map((r) => {
      const table = tableNumber(r.table);
      const destination = r.dst === "default" ? "::/0" : r.dst.includes("/") ? r.dst : `${r.dst}/128`;
      const metric = r.metric ?? 0;
      return {
        kind: "linux.ipv6.route" as const,
        name: artifactNames.route(table, destination, metric),
        attributes: {
          table,
          destination,
          metric,
          type: r.type ?? "unicast",
          ...(r.gateway ? { gateway: r.gateway } : {}),
          // An unreachable route shows "dev lo": the kernel's detail, not something routerd asked for.
          ...(r.dev && (r.type ?? "unicast") === "unicast" ? { device: r.dev } : {}),
          ...observedNextHops(r),
          ...(r.protocol ? { protocol: r.protocol } : {}),
        },
      };
    });
}

/** A numbered table "exists" while it holds routes. */
export function routeTablesFrom(routes: readonly ObservedArtifact[]): ObservedArtifact[] {
  const tables = new Map<number, number>();
  for (const r of routes) {
    const t = r.attributes.table as number;
    tables.set(t, (tables.get(t) ?? 0) + 1);
  }
  return [...tables].map(([table, count]) => ({
    kind: "linux.ipv4.routeTable" as const,
    name: artifactNames.routeTable(table),
    attributes: { table, routes: count },
  }));
}

export async function observeFwmarkRules(ctx: HostContext): Promise<ObservedArtifact[]> {
  const rules = await runJson<IpRule[]>(ctx.runner, "ip", ["-j", "-4", "rule", "show"]);
  return rules
    .filter((r) => r.fwmark !== undefined)
    .map((r) => {
      const mark = Number(r.fwmark);
      const table = tableNumber(r.table);
      return {
        kind: "linux.ipv4.fwmarkRule" as const,
        name: artifactNames.fwmarkRule(r.priority, mark, table),
        attributes: {
          priority: r.priority,
          mark,
          table,
          ...(r.fwmask ? { mask: Number(r.fwmask) } : {}),
          ...(r.suppress_prefixlen !== undefined ? { suppressPrefixLength: r.suppress_prefixlen } : {}),
        },
      };
    });
}
