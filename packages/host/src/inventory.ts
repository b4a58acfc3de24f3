// observe: one source per command (one `ip -j route` serves routes and route tables, one nft listing serves
// tables and sets). A source that fails makes all its kinds `unknown`, never empty.
import { knownKind, unknownKind, type ArtifactKind, type Inventory, type ObservedArtifact } from "@routerd/resource";
import type { HostContext } from "./context.js";
import { observeAddresses, observeFwmarkRules, observeLinks, observeRoutes, observeRoutes6, routeTablesFrom } from "./observers/ip.js";
import { observeNft } from "./observers/nft.js";
import { observeDaemons, observeFileBlocks, observeHostname, observeLeases, observeSysctls, observeSystemdUnits } from "./observers/system.js";

/** Names of interest per kind, for sources that read one object at a time (sysctl keys, file blocks). */
export type NameHints = ReadonlyMap<ArtifactKind, ReadonlySet<string>>;

interface Source {
  kinds: readonly ArtifactKind[];
  observe(ctx: HostContext, names: NameHints): Promise<ObservedArtifact[]>;
}

const names = (hints: NameHints, kind: ArtifactKind) => hints.get(kind) ?? new Set<string>();

const SOURCES: readonly Source[] = [
  { kinds: ["linux.link"], observe: (ctx) => observeLinks(ctx) },
  { kinds: ["linux.ipv4.address"], observe: (ctx) => observeAddresses(ctx, "inet") },
  { kinds: ["linux.ipv6.address"], observe: (ctx) => observeAddresses(ctx, "inet6") },
  {
    kinds: ["linux.ipv4.route", "linux.ipv4.routeTable"],
    observe: async (ctx) => {
      const routes = await observeRoutes(ctx);
      return [...routes, ...routeTablesFrom(routes)];
    },
  },
  { kinds: ["linux.ipv6.route"], observe: (ctx) => observeRoutes6(ctx) },
  { kinds: ["linux.ipv4.fwmarkRule"], observe: (ctx) => observeFwmarkRules(ctx) },
  {
    kinds: ["nft.table", "nft.set"],
    observe: async (ctx) => {
      const o = await observeNft(ctx.runner);
      return [...o.tables, ...o.sets];
    },
  },
  { kinds: ["linux.sysctl"], observe: async (_ctx, hints) => observeSysctls(names(hints, "linux.sysctl")) },
  { kinds: ["linux.hostname"], observe: async () => observeHostname() },
  { kinds: ["file"], observe: async (ctx, hints) => observeFileBlocks(ctx, names(hints, "file")) },
  { kinds: ["systemd.service"], observe: async (ctx) => observeSystemdUnits(ctx) },
  { kinds: ["routerd.daemon"], observe: async (ctx, hints) => observeDaemons(ctx, names(hints, "routerd.daemon")) },
  { kinds: ["routerd.lease"], observe: async (ctx, hints) => observeLeases(ctx, names(hints, "routerd.lease")) },
];

export function observableKinds(): ArtifactKind[] {
  return SOURCES.flatMap((s) => s.kinds);
}

export async function observeInventory(ctx: HostContext, kinds: Iterable<ArtifactKind>, hints: NameHints): Promise<Inventory> {
  const wanted = new Set(kinds);
  const inventory: Inventory = new Map();
  await Promise.all(
    SOURCES.filter((s) => s.kinds.some((k) => wanted.has(k))).map(async (source) => {
      try {
        const items = await source.observe(ctx, hints);
        for (const kind of source.kinds) inventory.set(kind, knownKind(items.filter((i) => i.kind === kind)));
      } catch (err) {
        const reason = (err as Error).message.split("\n")[0] ?? "observer failed";
        for (const kind of source.kinds) inventory.set(kind, unknownKind(reason));
      }
    }),
  );
  for (const kind of wanted) if (!inventory.has(kind)) inventory.set(kind, unknownKind(`no observer for ${kind} in this version`));
  return inventory;
}
