// keepalived.conf for the VRRP VirtualAddresses: one vrrp_instance per resource, one vrrp_script per tracked
// HealthCheck. Pure: the config view and routerd's paths in, the file's text out.
//
// Tracking reads the verdict file routerd-healthcheck keeps per probe (its state name, e.g. "Unhealthy");
// keepalived's rise/fall are the confirm counts and a negative weight the penalty (none = FAULT, the address
// is given up). Roles come back through notify_* commands that point a symlink at the state's name, which
// routerd reads for the resource's status: no shell, no script file to own.
import { durationMs, trackedCheck, virtualAddress, vrrpVersion, type ConfigView, type VirtualAddressSpec, type VirtualAddressTrack } from "@routerd/api";

export interface KeepalivedPaths {
  /** Where routerd-healthcheck writes one file per probe holding its state (<state-dir>/healthcheck/default/verdicts). */
  verdictDir: string;
  /** Where keepalived leaves each instance's role as a symlink <roleDir>/<VirtualAddress name> -> MASTER|BACKUP|FAULT|STOP. */
  roleDir: string;
}

export const VRRP_STATES = ["MASTER", "BACKUP", "FAULT", "STOP"] as const;

/** keepalived's names allow these characters; resource names are DNS-like already. */
const ident = (s: string) => s.replace(/[^A-Za-z0-9_.-]/g, "_");
const quote = (s: string) => `"${s.replace(/["\\]/g, "")}"`;

export function trackScriptName(va: string, tr: VirtualAddressTrack): string {
  return ident(`track_${va}_${trackedCheck(tr)}`);
}

/** Seconds as keepalived reads them: whole seconds, or up to two decimals (VRRPv3 centiseconds). */
function seconds(ms: number): string {
  return ms % 1000 === 0 ? String(ms / 1000) : (ms / 1000).toFixed(2).replace(/0$/, "");
}

function trackScript(va: string, tr: VirtualAddressTrack, intervalMs: number, paths: KeepalivedPaths): string[] {
  const file = `${paths.verdictDir}/${trackedCheck(tr)}`;
  return [
    `vrrp_script ${trackScriptName(va, tr)} {`,
    // Healthy, Passing, Failing and Unknown keep the router in; Unhealthy or no verdict at all fails it.
    `    script ${quote(`/bin/grep -qsvx Unhealthy ${file}`)}`,
    `    interval ${Math.max(1, Math.round(intervalMs / 1000))}`,
    `    timeout ${Math.max(1, Math.round(intervalMs / 1000))}`,
    `    fall ${tr.confirmConsecutiveUnhealthy}`,
    `    rise ${tr.confirmConsecutiveHealthy}`,
    ...(tr.unhealthyPenalty !== undefined ? [`    weight -${tr.unhealthyPenalty}`] : []),
    "}",
  ];
}

function instance(name: string, s: VirtualAddressSpec, ifname: string, paths: KeepalivedPaths): string[] {
  const v = s.vrrp!;
  const a = virtualAddress(s)!;
  const roleFile = `${paths.roleDir}/${name}`;
  const notify = (state: string) => `    notify_${state.toLowerCase()} ${quote(`/bin/ln -sfn ${state} ${roleFile}`)}`;
  return [
    `vrrp_instance ${ident(name)} {`,
    // Everyone starts as BACKUP; the election (priority, then address) picks the master.
    "    state BACKUP",
    `    interface ${ifname}`,
    `    virtual_router_id ${v.virtualRouterID}`,
    `    priority ${v.priority}`,
    `    advert_int ${seconds(durationMs(v.advertisementInterval))}`,
    `    version ${vrrpVersion(s)}`,
    ...(v.preempt ? [] : ["    nopreempt"]),
    ...(v.authentication !== undefined ? ["    authentication {", "        auth_type PASS", `        auth_pass ${quote(v.authentication)}`, "    }"] : []),
    ...(v.peers.length ? ["    unicast_peer {", ...v.peers.map((p) => `        ${p}`), "    }"] : []),
    "    virtual_ipaddress {",
    `        ${a.address}/${a.prefixLength} dev ${ifname}`,
    "    }",
    ...(s.track.length ? ["    track_script {", ...s.track.map((tr) => `        ${trackScriptName(name, tr)}`), "    }"] : []),
    ...VRRP_STATES.map(notify),
    "}",
  ];
}

/** The VRRP VirtualAddresses that keepalived runs (resolved: addressFrom filled in). */
export function vrrpAddresses(view: ConfigView) {
  return view.all<VirtualAddressSpec>("VirtualAddress").filter((r) => r.spec.mode === "vrrp" && r.spec.vrrp && virtualAddress(r.spec));
}

export function renderKeepalivedConfig(view: ConfigView, paths: KeepalivedPaths): string {
  const vas = vrrpAddresses(view);
  const out = [
    "# Written by routerd from the VirtualAddress resources (mode: vrrp). DO NOT EDIT: changes are overwritten.",
    "global_defs {",
    "    router_id routerd",
    // Tracking and notify commands run as root and only from root-owned paths.
    "    script_user root",
    "    enable_script_security",
    "}",
  ];
  for (const r of vas) {
    const ms = durationMs(r.spec.vrrp!.advertisementInterval);
    for (const tr of r.spec.track) out.push("", ...trackScript(r.metadata.name, tr, ms, paths));
  }
  for (const r of vas) out.push("", ...instance(r.metadata.name, r.spec, view.ifname(r.spec.interface), paths));
  return out.join("\n") + "\n";
}
