// Test support for the golden tests: the IngressService selection of a testdata folder, with the backends
// its down.json names (`{ "service": ["backend", ...] }`) taken out.
import { existsSync, readFileSync } from "node:fs";
import { activeIngressTargets, type ConfigView, type IngressServiceSpec } from "@routerd/api";
import { defaultIngressSelection, type IngressState } from "./ingress.js";

export function ingressWithDown(view: ConfigView, file: string): Map<string, IngressState> {
  const selection = defaultIngressSelection(view);
  if (!existsSync(file)) return selection;
  const down = JSON.parse(readFileSync(file, "utf8")) as Record<string, string[]>;
  for (const [name, state] of selection) {
    const spec = view.find<IngressServiceSpec>("IngressService", name)!.spec;
    const usable = state.all.filter((t) => !(down[name] ?? []).includes(t.name));
    selection.set(name, { all: state.all, active: activeIngressTargets(spec.policy.selection, usable) });
  }
  return selection;
}
