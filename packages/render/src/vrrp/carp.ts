// FreeBSD: the same VRRP VirtualAddresses as CARP, as rc.conf(5) lines and the sysctl that makes a
// higher-priority router take the address back. Pure. Checked against carp(4) and rc.conf(5) by eye: no
// FreeBSD host here.
//
// CARP elects the lowest advbase + advskew/256, so VRRP's priority (1-254, higher wins) becomes
// advskew = 254 - priority. advbase is whole seconds. Preemption is one switch for the whole host.
// Tracking has no rc.conf form (carp's demotion counter is raised by devd or a script): listed as comments.
import { durationMs, trackedCheck, virtualAddress, type ConfigView } from "@routerd/api";
import { vrrpAddresses } from "./keepalived.js";

export interface CarpConfig {
  /** rc.conf lines, one ifconfig_<if>_alias<n> per address. */
  rcConf: string;
  /** sysctl.conf line(s). */
  sysctlConf: string;
}

export function renderCarp(view: ConfigView): CarpConfig {
  const aliases = new Map<string, number>();
  const rc = ["# Written by routerd from the VirtualAddress resources (mode: vrrp) as carp(4). DO NOT EDIT."];
  const vas = vrrpAddresses(view);
  for (const r of vas) {
    const s = r.spec;
    const v = s.vrrp!;
    const a = virtualAddress(s)!;
    const ifname = view.ifname(s.interface);
    const n = aliases.get(ifname) ?? 0;
    aliases.set(ifname, n + 1);
    const advbase = Math.max(1, Math.ceil(durationMs(v.advertisementInterval) / 1000));
    const words = [
      s.family === "ipv4" ? "inet" : "inet6",
      `vhid ${v.virtualRouterID}`,
      `advbase ${advbase}`,
      `advskew ${254 - v.priority}`,
      ...(v.authentication !== undefined ? [`pass ${v.authentication}`] : []),
      ...v.peers.map((p) => (s.family === "ipv4" ? `peer ${p}` : `peer6 ${p}`)),
      "alias",
      s.family === "ipv4" ? `${a.address}/${a.prefixLength}` : `${a.address} prefixlen ${a.prefixLength}`,
    ];
    rc.push(`# VirtualAddress/${r.metadata.name}`);
    for (const tr of s.track) {
      rc.push(`#   track HealthCheck/${trackedCheck(tr)}: ${tr.unhealthyPenalty !== undefined ? `demote by ${tr.unhealthyPenalty}` : "give the address up"} while unhealthy (not rendered: raise net.inet.carp.demotion from devd)`);
    }
    rc.push(`ifconfig_${ifname.replace(/[^A-Za-z0-9_]/g, "_")}_alias${n}="${words.join(" ")}"`);
  }
  const preempt = vas.length > 0 && vas.every((r) => r.spec.vrrp!.preempt);
  const sysctl = [
    "# Written by routerd: CARP preemption is host-wide; on only when every VirtualAddress asks for it.",
    `net.inet.carp.preempt=${preempt ? 1 : 0}`,
  ];
  return { rcConf: rc.join("\n") + "\n", sysctlConf: sysctl.join("\n") + "\n" };
}
