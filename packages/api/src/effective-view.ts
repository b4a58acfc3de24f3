// The one effective view used by plan, reconcile, GC and status cleanup alike: which resources are
// active (their `when` holds, their `*From` values are known: filled in), inactive (`when` is false),
// undecided (state not known yet) or pending (a required source has no value). Undecided and pending
// resources keep what they have on the host as it is.
import type { RouterConfig, Resource } from "./kind.js";
import type { StatusView } from "./status-view.js";
import { evaluateWhen, type WhenLookup, type WhenState } from "./when.js";

export interface EffectiveView {
  config: RouterConfig;
  /** With their `*From` values filled in (a resolved resource is a copy with the same owner and index). */
  active: Resource[];
  inactive: Resource[];
  undecided: Resource[];
  /** Waiting for a status-sourced value, with the reason. */
  pending: { resource: Resource; reason: string }[];
}

/**
 * `state` answers `when`; `sources` fills in `*From` values (a config without any needs none). Both may be
 * the same StatusView.
 */
export function effectiveView(config: RouterConfig, state: WhenState | WhenLookup, sources?: StatusView): EffectiveView {
  const view: EffectiveView = { config, active: [], inactive: [], undecided: [], pending: [] };
  for (const r of config.resources) {
    const verdict = r.when ? evaluateWhen(r.when, state) : true;
    if (verdict === false) view.inactive.push(r);
    else if (verdict === undefined) view.undecided.push(r);
    else if (!r.sources) view.active.push(r);
    else if (!sources) view.pending.push({ resource: r, reason: "status-sourced values were not read" });
    else {
      const resolved = sources.resolve(r);
      if (resolved.pending !== undefined) view.pending.push({ resource: r, reason: resolved.pending });
      else view.active.push(resolved.resource);
    }
  }
  return view;
}
