// The daemon's config file, written by `routerd serve` from one BGPRouter and the BGPPeers naming it:
// { "router": { "name", "spec" }, "peers": [{ "name", "spec" }] }. The specs are parsed with the kinds' own
// schemas (one definition of every field), so the daemon accepts exactly what `routerd validate` does.
import { readFile } from "node:fs/promises";
import { bfdSpec, bgpPeerSpec, bgpRouterSpec, formatPath, t, type BGPPeerSpec, type BGPRouterSpec } from "@routerd/api";
import { ConfigError as DaemonConfigError } from "@routerd/daemon-kit/cli";
import type { BfdConfig } from "../bfd/manager.js";

export interface PeerConfig {
  name: string;
  spec: BGPPeerSpec;
}

export interface BgpConfig {
  router: { name: string; spec: BGPRouterSpec };
  peers: PeerConfig[];
  /** The BFD sessions the peers name (interface already resolved to its Linux name). */
  bfd: BfdConfig[];
}

const NAME = t.string({ pattern: /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, patternHint: "a resource name" });

const configSchema = t.object({
  router: t.object({ name: NAME, spec: bgpRouterSpec }),
  peers: t.withDefault(t.array(t.object({ name: NAME, spec: bgpPeerSpec })), []),
  bfd: t.withDefault(t.array(t.object({ name: NAME, spec: bfdSpec, ifname: t.optional(t.string({ minLength: 1 })) })), []),
});

/** The kit's config error (main() exits 2 for it), with this daemon's one-line message. */
export class ConfigError extends DaemonConfigError {
  constructor(
    readonly file: string,
    problems: string[],
  ) {
    super(problems, file);
    this.message = `${file}: ${problems.join("; ")}`;
  }
}

export function parseBgpConfig(value: unknown, file = "<config>"): BgpConfig {
  const ctx = { issues: [], refs: [] } as Parameters<typeof configSchema.parse>[2];
  const parsed = configSchema.parse(value, [], ctx);
  const problems = ctx.issues.map((i) => `${formatPath(i.path) || "(top)"}: ${i.message}`);
  if (parsed !== undefined) {
    const seen = new Map<string, string>();
    for (const p of parsed.peers) {
      if (p.spec.routerRef !== parsed.router.name) problems.push(`peers.${p.name}: routerRef is ${p.spec.routerRef}, not ${parsed.router.name}`);
      for (const a of p.spec.peers) {
        const other = seen.get(a);
        if (other !== undefined) problems.push(`peers.${p.name}: neighbor ${a} is also in ${other}`);
        seen.set(a, p.name);
      }
    }
  }
  if (parsed !== undefined) {
    const neighbors = new Set(parsed.peers.flatMap((p) => p.spec.peers));
    for (const b of parsed.bfd) if (!neighbors.has(b.spec.peer)) problems.push(`bfd.${b.name}: ${b.spec.peer} is not a neighbor of this router`);
  }
  if (problems.length > 0 || parsed === undefined) throw new ConfigError(file, problems.length ? problems : ["invalid config"]);
  const config = parsed as BgpConfig;
  // The original API's rule: a BFD is multihop when the BGPPeer naming it peers more than one hop away.
  for (const b of config.bfd) {
    const hops = config.peers.find((p) => p.spec.bfd === b.name)?.spec.ebgpMultihop;
    if (hops !== undefined && hops > 1) b.multihop = true;
  }
  return config;
}

export async function loadBgpConfig(path: string): Promise<BgpConfig> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw new ConfigError(path, [`cannot read: ${(err as Error).message}`]);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(path, [`not JSON: ${(err as Error).message}`]);
  }
  return parseBgpConfig(json, path);
}
