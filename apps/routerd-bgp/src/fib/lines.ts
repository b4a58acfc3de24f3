// FIB routes as `ip -batch` lines and back (pure). A route is identified by (prefix, protocol, metric,
// table); its value is the sorted next-hop list (several = ECMP).

export interface FibTarget {
  protocol: number;
  table: number;
  metric: number;
}

/** Sorted, comma-joined next hops: one string compares and stores cheaply (100k prefixes). */
export type NextHopKey = string;

export const nextHopKey = (hops: Iterable<string>): NextHopKey => [...new Set(hops)].sort().join(",");

export function replaceLine(prefix: string, hops: NextHopKey, t: FibTarget): string {
  const head = `route replace ${prefix} proto ${t.protocol} metric ${t.metric} table ${t.table}`;
  const list = hops.split(",");
  return list.length === 1 ? `${head} via ${list[0]}` : `${head} ${list.map((h) => `nexthop via ${h}`).join(" ")}`;
}

export function deleteLine(prefix: string, t: FibTarget, metric = t.metric): string {
  return `route del ${prefix} proto ${t.protocol} metric ${metric} table ${t.table}`;
}

export interface KernelRoute {
  prefix: string;
  hops: NextHopKey;
  metric: number;
}

/** Canonical prefix as GoBGP prints it: host routes get their length, `default` its zero prefix. */
export function canonicalPrefix(token: string, v6: boolean): string {
  if (token === "default") return v6 ? "::/0" : "0.0.0.0/0";
  return token.includes("/") ? token : `${token}/${v6 ? 128 : 32}`;
}

/**
 * One line of `ip -o [-6] route show table T proto P`: "10.0.0.0/24 via 192.0.2.2 dev veth0 metric 20"
 * or, for ECMP, "10.0.0.0/24 metric 20 \tnexthop via A dev x weight 1 \tnexthop via B dev y weight 1".
 */
export function parseRouteLine(line: string, v6: boolean): KernelRoute | undefined {
  const tokens = line.replace(/\\/g, " ").split(/\s+/).filter(Boolean);
  let i = 0;
  // A route type may come first ("unicast", "blackhole", ...): routerd-bgp only writes unicast routes.
  if (tokens[0] === "unicast") i = 1;
  const dst = tokens[i];
  if (dst === undefined || /^(blackhole|unreachable|prohibit|local|broadcast|multicast|throw|nat|anycast)$/.test(dst)) return undefined;
  const hops: string[] = [];
  let metric = 0;
  for (let j = i + 1; j < tokens.length; j++) {
    if (tokens[j] === "via") {
      // "via inet6 fe80::1" for a cross-family next hop
      const next = tokens[j + 1] === "inet" || tokens[j + 1] === "inet6" ? tokens[j + 2] : tokens[j + 1];
      if (next !== undefined) hops.push(next);
    } else if (tokens[j] === "metric") {
      metric = Number(tokens[j + 1]);
    }
  }
  if (hops.length === 0) return undefined;
  return { prefix: canonicalPrefix(dst, v6), hops: nextHopKey(hops), metric };
}
