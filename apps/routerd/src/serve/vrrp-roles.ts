// The VRRP VirtualAddresses' roles as keepalived reports them, in `routerctl status` (message and details)
// and as `vrrp.role` events on every change seen by serve.
import type { VirtualAddressSpec, ConfigView } from "@routerd/api";
import type { DaemonContext } from "@routerd/daemon-kit";
import { vrrpRole } from "../core/runtime.js";

export class VrrpRoles {
  private readonly last = new Map<string, string>();

  report(view: ConfigView, runDir: string, ctx: DaemonContext, phaseOf: (name: string) => string | undefined): void {
    const seen = new Set<string>();
    for (const r of view.all<VirtualAddressSpec>("VirtualAddress").filter((x) => x.spec.mode === "vrrp")) {
      const name = r.metadata.name;
      const key = `VirtualAddress/${name}`;
      seen.add(name);
      const role = vrrpRole(runDir, name);
      const value = role.state === "present" ? role.value : "Unknown";
      ctx.status.setResource(key, {
        kind: "VirtualAddress",
        phase: phaseOf(key) ?? "Unknown",
        message: role.state === "present" ? `role ${role.value}` : role.reason,
        details: { role: value, virtualRouterID: r.spec.vrrp?.virtualRouterID ?? null, priority: r.spec.vrrp?.priority ?? null },
      });
      const before = this.last.get(name);
      if (before !== value) {
        if (before !== undefined) ctx.events.emit({ topic: "vrrp.role", resource: key, message: `${before} → ${value}`, attributes: { from: before, to: value } });
        this.last.set(name, value);
      }
    }
    for (const name of [...this.last.keys()]) if (!seen.has(name)) this.last.delete(name);
  }
}
