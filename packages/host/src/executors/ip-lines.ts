// `ip -batch` lines per artifact kind. Pure: attributes in, command lines out.
import type { ArtifactKind, Attributes, NextHop } from "@routerd/resource";

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
  /** `now` turns absolute lifetimes into the seconds `ip` wants. */
  ensure(attrs: Attributes, now?: number): string[];
  remove(attrs: Attributes): string[];
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
    ensure: (x) => [`link set dev ${a(x, "ifname")}${a(x, "mtu") !== undefined ? ` mtu ${a(x, "mtu")}` : ""} ${a(x, "adminUp") === false ? "down" : "up"}`],
    remove: () => [],
  },
  "linux.ipv4.address": {
    ensure: (x) => [`address replace ${a(x, "address")}/${a(x, "prefixLength")} dev ${a(x, "ifname")}`],
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
