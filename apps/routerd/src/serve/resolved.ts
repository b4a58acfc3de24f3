// Daemon configs are written from resources with their `*From` values filled in. A source can be briefly
// unknown (a daemon slow to answer GetStatus on a loaded machine): the resource is then pending, and the
// effective view keeps its host artifacts as they are. Daemon configs must do the same, or a DNS resolver
// would be reloaded without its upstream until the next cycle.
import type { EffectiveView, Resource } from "@routerd/api";

export interface ResolvedEntry {
  /** The resource as configured (its spec before resolution), to notice that the config changed it. */
  configured: string;
  resource: Resource;
}

/**
 * The resolved copies to use for daemon configs after a reconcile: the active ones as resolved now, and for a
 * resource still pending or undecided, the copy the previous cycle resolved, as long as the config did not
 * change that resource meanwhile.
 */
export function nextResolved(previous: ReadonlyMap<string, ResolvedEntry>, view: EffectiveView): Map<string, ResolvedEntry> {
  const next = new Map<string, ResolvedEntry>();
  const configured = new Map(view.config.resources.map((r) => [r.owner, JSON.stringify(r.spec)]));
  for (const r of view.active) {
    if (r.sources) next.set(r.owner, { configured: configured.get(r.owner) ?? "", resource: r });
  }
  for (const r of [...view.pending.map((p) => p.resource), ...view.undecided]) {
    const prev = previous.get(r.owner);
    if (prev && prev.configured === configured.get(r.owner)) next.set(r.owner, prev);
  }
  return next;
}

/**
 * The resources daemon configs are written from: the active ones as resolved now, plus the pending or
 * undecided ones `resolved` kept from an earlier cycle; inactive ones (their `when` is false) are left out.
 */
export function daemonResources(view: EffectiveView, resolved: ReadonlyMap<string, ResolvedEntry>): Resource[] {
  const active = new Map(view.active.map((r) => [r.owner, r]));
  const out: Resource[] = [];
  for (const r of view.config.resources) {
    const use = active.get(r.owner) ?? resolved.get(r.owner)?.resource;
    if (use) out.push(use);
  }
  return out;
}
