// Test support for the golden tests: the IngressService selection of a testdata folder, with the backends
// its down.json names (`{ "service": ["backend", ...] }`) taken out.
import { existsSync, readFileSync } from "node:fs";
import { ingressBackends, type ConfigView, type IngressServiceSpec } from "@routerd/api";
import type { IngressSelection } from "./ingress.js";

export function ingressWithDown(view: ConfigView, file: string): IngressSelection {
  if (!existsSync(file)) return new Map();
  const down = JSON.parse(readFileSync(file, "utf8")) as Record<string, string[]>;
  return new Map(
    view.all<IngressServiceSpec>("IngressService").map((r) => [r.metadata.name, ingressBackends(r.spec).map((b) => b.name).filter((n) => !(down[r.metadata.name] ?? []).includes(n))]),
  );
}
