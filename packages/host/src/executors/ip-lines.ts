// `ip -batch` lines per artifact kind. Pure: attributes in, command lines out.
import type { ArtifactKind, Attributes, NextHop } from "@routerd/resource";
import { linkAddLine, linkNeedsRecreate, type LinkData } from "../links.js";

const a = (attrs: Attributes, key: string) => attrs[key] as string | number | boolean | undefined;

/** `nexthop via G dev D weight W` for each next hop of a multipath route; empty for a single path. */
function nexthopWords(attrs: Attributes): string[] {
  const hops = attrs.nexthops as NextHop[] | undefined;
  if (!hops?.length) return [];
  return hops.flatMap((h) => ["nexthop", "via", h.gateway, ...(h.device ? ["dev", h.device] : []), "weight", String(h.weight)]);
}

function routeSpec(attrs: Attributes): string {
  const parts: string[] = [];
  if (a(attrs, "type") === "blackhole") parts.push("blackhole");
  parts.push(String(a(attrs, "destination")));
  if (a(attrs, "type") !== "blackhole") {
    if (a(attrs, "gateway")) parts.push("via", String(a(attrs, "gateway")));
    if (a(attrs, "device")) parts.push("dev", String(a(attrs, "device")));
    if (a(attrs, "preferredSource")) parts.push("src", String(a(attrs, "preferredSource")));
  }
  parts.push("table", String(a(attrs, "table")), "metric", String(a(attrs, "metric") ?? 0), ...nexthopWords(attrs));
  return parts.join(" ");
}

const hex = (n: unknown) => `0x${Number(n).toString(16)}`;
const ruleSpec = (attrs: Attributes) =>
  [
    `priority ${a(attrs, "priority")}`,
    `fwmark ${hex(a(attrs, "mark"))}${a(attrs, "mask") !== undefined ? `/${hex(a(attrs, "mask"))}` : ""}`,
    `table ${a(attrs, "table")}`,
    ...(a(attrs, "suppressPrefixLength") !== undefined ? [`suppress_prefixlength ${a(attrs, "suppressPrefixLength")}`] : []),
  ].join(" ");

export interface IpLineBuilder {
  /** `now` turns absolute lifetimes into the seconds `ip` wants; `observed` is the object on the host, if any. */
  ensure(attrs: Attributes, now?: number, observed?: Attributes): string[];
  remove(attrs: Attributes): string[];
}

/**
 * A link: routerd creates it when it has a link type and is absent (or makes it again when its type or
 * parameters differ: only for links routerd created, the planner decides that), then sets MTU, master, up,
 * and enslaves the members (a VRF's interfaces).
 */
function linkLines(x: Attributes, observed?: Attributes): string[] {
  const ifname = String(a(x, "ifname"));
  const type = a(x, "linkType") as string | undefined;
  const lines: string[] = [];
  if (type !== undefined && (!observed || linkNeedsRecreate(x, observed))) {
    if (observed) lines.push(`link del ${ifname}`);
    lines.push(linkAddLine(ifname, type, (x.linkData ?? {}) as LinkData));
  }
  const master = x.master === undefined ? "" : x.master === null ? " nomaster" : ` master ${x.master as string}`;
  lines.push(`link set dev ${ifname}${a(x, "mtu") !== undefined ? ` mtu ${a(x, "mtu")}` : ""}${master} ${a(x, "adminUp") === false ? "down" : "up"}`);
  for (const m of (x.members ?? []) as string[]) lines.push(`link set dev ${m} master ${ifname}`);
  return lines;
}

/** Seconds left until an ISO time ("forever" without one), never below `min`. */
function lifetime(until: unknown, now: number, min: number): string {
  if (typeof until !== "string") return "forever";
  return String(Math.max(min, Math.floor((Date.parse(until) - now) / 1000)));
}

const expired = (until: unknown, now: number) => typeof until === "string" && Date.parse(until) <= now;

/** IPv6 lines carry IPv6 addresses, so `ip -batch` infers the family (a line cannot say -6). */
function route6Spec(attrs: Attributes): string {
  const type = a(attrs, "type") ?? "unicast";
  const parts: string[] = type === "unicast" ? [] : [String(type)];
  parts.push(String(a(attrs, "destination")));
  if (type === "unicast") {
    if (a(attrs, "gateway")) parts.push("via", String(a(attrs, "gateway")));
    if (a(attrs, "device")) parts.push("dev", String(a(attrs, "device")));
  }
  parts.push("table", String(a(attrs, "table")), "metric", String(a(attrs, "metric") ?? 0), ...nexthopWords(attrs));
  return parts.join(" ");
}

export const IP_LINES: Partial<Record<ArtifactKind, IpLineBuilder>> = {
  "linux.link": {
    ensure: (x, _now, observed) => linkLines(x, observed),
    // Only links routerd created are ever removed (the teardown registry's guard); others have no line.
    remove: (x) => (a(x, "linkType") !== undefined ? [`link del ${a(x, "ifname")}`] : []),
  },
  "linux.ipv4.address": {
    ensure: (x) => [`address replace ${a(x, "address")}/${a(x, "prefixLength")}${a(x, "peer") ? ` peer ${a(x, "peer")}` : ""} dev ${a(x, "ifname")}`],
    remove: (x) => [`address del ${a(x, "address")}/${a(x, "prefixLength")} dev ${a(x, "ifname")}`],
  },
  "linux.ipv6.address": {
    // A lease that has run out is not put back, not even for a second; a passed preferred time is 0
    // (deprecated), which the kernel accepts.
    ensure: (x, now = Date.now()) =>
      expired(a(x, "validUntil"), now)
        ? []
        : [
            `address replace ${a(x, "address")}/${a(x, "prefixLength")} dev ${a(x, "ifname")} valid_lft ${lifetime(a(x, "validUntil"), now, 1)} preferred_lft ${lifetime(a(x, "preferredUntil") ?? a(x, "validUntil"), now, 0)}`,
          ],
    remove: (x) => [`address del ${a(x, "address")}/${a(x, "prefixLength")} dev ${a(x, "ifname")}`],
  },
  "linux.ipv6.route": {
    ensure: (x) => [`route replace ${route6Spec(x)}`],
    remove: (x) => [`route del ${route6Spec({ ...x, gateway: undefined, device: undefined, nexthops: undefined })}`],
  },
  "linux.ipv4.route": {
    ensure: (x) => [`route replace ${routeSpec(x)}`],
    remove: (x) => [`route del ${routeSpec({ ...x, gateway: undefined, device: undefined, nexthops: undefined })}`],
  },
  "linux.ipv4.fwmarkRule": {
    ensure: (x) => [`rule add ${ruleSpec(x)}`],
    remove: (x) => [`rule del ${ruleSpec(x)}`],
  },
  // A table exists through its routes; removing it deletes the routes left in it (see apply.ts).
  "linux.ipv4.routeTable": { ensure: () => [], remove: () => [] },
};

/** Line numbers (1-based) that `ip -batch -force` reported as failed, with the error printed before each. */
export function failedBatchLines(stderr: string): Map<number, string> {
  const failed = new Map<number, string>();
  let last = "";
  for (const line of stderr.split("\n")) {
    const m = /^Command failed -:(\d+)$/.exec(line.trim());
    if (m) failed.set(Number(m[1]), last || "failed");
    else if (line.trim()) last = line.trim();
  }
  return failed;
}
