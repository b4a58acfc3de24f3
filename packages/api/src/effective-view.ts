// The one effective view used by plan, reconcile, GC and status cleanup alike: which resources are
// active (their `when` holds), inactive (`when` is false) or undecided (state not known yet).
import type { RouterConfig, Resource } from "./kind.js";
import { evaluateWhen, type WhenState } from "./when.js";

export interface EffectiveView {
  config: RouterConfig;
  active: Resource[];
  inactive: Resource[];
  undecided: Resource[];
}

export function effectiveView(config: RouterConfig, state: WhenState): EffectiveView {
  const view: EffectiveView = { config, active: [], inactive: [], undecided: [] };
  for (const r of config.resources) {
    const verdict = r.when ? evaluateWhen(r.when, state) : true;
    (verdict === true ? view.active : verdict === false ? view.inactive : view.undecided).push(r);
  }
  return view;
}
