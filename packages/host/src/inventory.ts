// observe: one source per command (one `ip -j route` serves routes and route tables, one nft listing serves
// tables and sets). A source that fails makes all its kinds `unknown`, never empty.
import { knownKind, unknownKind, type ArtifactKind, type Inventory, type ObservedArtifact } from "@routerd/resource";
import type { HostContext } from "./context.js";
import type { Topic, TopicCache } from "./resident/cache.js";
import { observeAddresses, observeFwmarkRules, observeLinks, observeRoutes, observeRoutes6, routeTablesFrom } from "./observers/ip.js";
import { observeNft } from "./observers/nft.js";
import { observeFdb, observeFou } from "./observers/tunnels.js";
import { observePackages } from "./packages.js";
import { observeDropins, observeKernelModules } from "./runtime.js";
import { observeDaemons, observeFileBlocks, observeRouteProtocols, observeHostname, observeLeases, observeSysctls } from "./observers/system.js";
import { observeRcScripts } from "./rc-scripts.js";
import { observeSystemdUnits } from "./units.js";
import { observeWireGuardDevices, wireGuardArtifacts } from "./observers/wireguard.js";

/** Names of interest per kind, for sources that read one object at a time (sysctl keys, file blocks). */
export type NameHints = ReadonlyMap<ArtifactKind, ReadonlySet<string>>;

interface Source {
  kinds: readonly ArtifactKind[];
  observe(ctx: HostContext, names: NameHints): Promise<ObservedArtifact[]>;
  /** Reads everything of its kinds whatever the hints: may be started early (see prefetchInventory). */
  bulk?: true;
  /**
   * The netlink topics whose notifications announce every change of what it reads: a resident inventory
   * (routerd serve) reuses its last reading until one of them changes. Bulk sources only.
   */
  watch?: readonly Topic[];
}

/** Where a long-lived process keeps observations between runs (see resident/). */
export type ObservationCache = Pick<TopicCache, "read">;

const names = (hints: NameHints, kind: ArtifactKind) => hints.get(kind) ?? new Set<string>();

const SOURCES: readonly Source[] = [
  { kinds: ["linux.link"], bulk: true, watch: ["link"], observe: (ctx) => observeLinks(ctx) },
  { kinds: ["linux.ipv4.address"], bulk: true, watch: ["ipv4.address"], observe: (ctx) => observeAddresses(ctx, "inet") },
  { kinds: ["linux.ipv6.address"], bulk: true, watch: ["ipv6.address"], observe: (ctx) => observeAddresses(ctx, "inet6") },
  {
    kinds: ["linux.ipv4.route", "linux.ipv4.routeTable"],
    bulk: true,
    watch: ["ipv4.route"],
    observe: async (ctx) => {
      const routes = await observeRoutes(ctx);
      return [...routes, ...routeTablesFrom(routes)];
    },
  },
  { kinds: ["linux.ipv6.route"], bulk: true, watch: ["ipv6.route"], observe: (ctx) => observeRoutes6(ctx) },
  { kinds: ["linux.ipv4.fwmarkRule"], bulk: true, watch: ["rule"], observe: (ctx) => observeFwmarkRules(ctx) },
  { kinds: ["linux.fdb"], bulk: true, observe: (ctx) => observeFdb(ctx) },
  { kinds: ["linux.fou"], bulk: true, observe: (ctx) => observeFou(ctx) },
  {
    kinds: ["nft.table", "nft.set"],
    bulk: true,
    observe: async (ctx) => {
      const o = await observeNft(ctx.runner);
      return [...o.tables, ...o.sets];
    },
  },
  { kinds: ["wireguard.device", "wireguard.peer"], bulk: true, observe: async (ctx) => wireGuardArtifacts(await observeWireGuardDevices(ctx)) },
  { kinds: ["package"], bulk: true, observe: (ctx) => observePackages(ctx) },
  { kinds: ["linux.sysctl"], observe: async (_ctx, hints) => observeSysctls(names(hints, "linux.sysctl")) },
  { kinds: ["linux.hostname"], observe: async () => observeHostname() },
  { kinds: ["file"], observe: async (ctx, hints) => observeFileBlocks(ctx, names(hints, "file")) },
  { kinds: ["systemd.service"], observe: async (ctx) => observeSystemdUnits(ctx) },
  { kinds: ["freebsd.rcScript"], observe: async (ctx) => observeRcScripts(ctx) },
  { kinds: ["linux.kernelModule"], bulk: true, observe: async () => observeKernelModules() },
  { kinds: ["systemd.dropin"], observe: async (ctx, hints) => observeDropins(ctx, names(hints, "systemd.dropin")) },
  { kinds: ["routerd.daemon"], observe: async (ctx, hints) => observeDaemons(ctx, names(hints, "routerd.daemon")) },
  { kinds: ["linux.route.protocol"], observe: async (ctx, hints) => observeRouteProtocols(ctx, names(hints, "linux.route.protocol")) },
  { kinds: ["routerd.lease"], observe: async (ctx, hints) => observeLeases(ctx, names(hints, "routerd.lease")) },
];

/** Kinds whose source is not bulk: those that read names they are given (sysctl keys, file blocks, daemons, leases) need hints. */
export const NAME_HINTED_KINDS: ReadonlySet<ArtifactKind> = new Set(SOURCES.filter((s) => !s.bulk).flatMap((s) => s.kinds));

/** The topics whose notifications cover these kinds (kinds no notification covers have none). */
export function topicsOfKinds(kinds: Iterable<ArtifactKind>): Set<Topic> {
  const wanted = new Set(kinds);
  return new Set(SOURCES.filter((s) => s.kinds.some((k) => wanted.has(k))).flatMap((s) => s.watch ?? []));
}

/** One source's reading: from the cache where the source is watched and a cache is given. */
function read(source: Source, ctx: HostContext, hints: NameHints, cache?: ObservationCache): Promise<ObservedArtifact[]> {
  if (!cache || !source.watch) return source.observe(ctx, hints);
  return cache.read(source.kinds.join(","), source.watch, () => source.observe(ctx, hints));
}

export function observableKinds(): ArtifactKind[] {
  return SOURCES.flatMap((s) => s.kinds);
}

/** Observations already under way, started by prefetchInventory. */
export type InventoryPrefetch = ReadonlyMap<Source, Promise<ObservedArtifact[]>>;

/**
 * Starts the bulk sources for these kinds now, so the commands (`ip -j route` of 10,000 routes, `nft -j`)
 * run while the caller computes its desired state. Call it only where a later observation would see the
 * same host (routerd holds the state-dir lock). Failures surface when observeInventory awaits them.
 */
export function prefetchInventory(ctx: HostContext, kinds: Iterable<ArtifactKind>, cache?: ObservationCache): InventoryPrefetch {
  const wanted = new Set(kinds);
  const started = new Map<Source, Promise<ObservedArtifact[]>>();
  for (const source of SOURCES) {
    if (!source.bulk || !source.kinds.some((k) => wanted.has(k))) continue;
    const p = read(source, ctx, new Map(), cache);
    p.catch(() => undefined); // not an unhandled rejection if nobody asks for it after all
    started.set(source, p);
  }
  return started;
}

/** What the host has of these kinds; with a cache (routerd serve), watched sources may answer from it. */
export async function observeInventory(ctx: HostContext, kinds: Iterable<ArtifactKind>, hints: NameHints, prefetch?: InventoryPrefetch, cache?: ObservationCache): Promise<Inventory> {
  const wanted = new Set(kinds);
  const inventory: Inventory = new Map();
  await Promise.all(
    SOURCES.filter((s) => s.kinds.some((k) => wanted.has(k))).map(async (source) => {
      try {
        const items = await (prefetch?.get(source) ?? read(source, ctx, hints, cache));
        for (const kind of source.kinds) inventory.set(kind, knownKind(source.kinds.length === 1 ? items : items.filter((i) => i.kind === kind)));
      } catch (err) {
        const reason = (err as Error).message.split("\n")[0] ?? "observer failed";
        for (const kind of source.kinds) inventory.set(kind, unknownKind(reason));
      }
    }),
  );
  for (const kind of wanted) if (!inventory.has(kind)) inventory.set(kind, unknownKind(`no observer for ${kind} in this version`));
  return inventory;
}
