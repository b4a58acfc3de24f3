// The original's implicit firewall: what each zone role may reach when no FirewallPolicy sets explicit
// defaults. mgmt reaches everything; trust reaches the router and untrust (another trust zone only with
// sameRoleAccept); untrust reaches nothing. Inside one zone, trust and mgmt interfaces reach each other.
import type { FirewallZoneSpec, Resource } from "@routerd/api";
import { ifnameMatch } from "./text.js";

type Role = FirewallZoneSpec["role"];

const TO_SELF: Record<Role, boolean> = { mgmt: true, trust: true, untrust: false };
const REACHES: Record<Role, Record<Role, boolean>> = {
  mgmt: { mgmt: true, trust: true, untrust: true },
  trust: { mgmt: false, trust: true, untrust: true },
  untrust: { mgmt: false, trust: false, untrust: false },
};

export function roleMatrixRules(zones: readonly Resource<FirewallZoneSpec>[], ifnames: ReadonlyMap<string, string[]>, sameRoleAccept: boolean): { input: string[]; forward: string[] } {
  const input: string[] = [];
  const forward: string[] = [];
  for (const z of zones) {
    const from = ifnameMatch("iifname", ifnames.get(z.metadata.name)!);
    if (TO_SELF[z.spec.role]) input.push(`# FirewallZone/${z.metadata.name} (${z.spec.role}) → the router`, `${from} accept`);
    for (const to of zones) {
      const same = to === z;
      const allowed = same ? z.spec.role !== "untrust" : REACHES[z.spec.role][to.spec.role] && (z.spec.role !== to.spec.role || sameRoleAccept);
      if (!allowed) continue;
      forward.push(`# FirewallZone/${z.metadata.name} (${z.spec.role}) → ${to.metadata.name} (${to.spec.role})`, `${from} ${ifnameMatch("oifname", ifnames.get(to.metadata.name)!)} accept`);
    }
  }
  return { input, forward };
}
