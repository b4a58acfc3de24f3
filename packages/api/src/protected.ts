// spec.reconcile.protectedInterfaces / protectedZones: the Linux interfaces routerd never adopts, changes or
// removes anything on (a management link, say), whatever the config or the ledger says.
import type { ConfigView, RouterConfig } from "./kind.js";

/** Linux names of the protected interfaces: listed ones (by resource or Linux name) and those of protected zones. */
export function protectedIfnames(config: RouterConfig, view: ConfigView): Set<string> {
  const out = new Set<string>();
  const spec = config.reconcile;
  if (!spec) return out;
  for (const name of spec.protectedInterfaces) {
    out.add(name);
    out.add(view.ifname(name));
  }
  for (const zone of spec.protectedZones) {
    for (const i of view.find<{ interfaces: string[] }>("FirewallZone", zone)?.spec.interfaces ?? []) out.add(view.ifname(i));
  }
  return out;
}

/** The interface an artifact sits on, if any (a link, an address, a route's device). */
export function artifactIfname(attributes: Readonly<Record<string, unknown>>): string | undefined {
  const v = attributes.ifname ?? attributes.device;
  return typeof v === "string" ? v : undefined;
}
