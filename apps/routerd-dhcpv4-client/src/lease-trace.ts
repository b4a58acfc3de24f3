// One span per lease transaction, from the phase changes the engine reports: leaving bound/idle for
// init/selecting (dhcpv4.acquire: DISCOVER → OFFER → REQUEST → ACK), rebooting (dhcpv4.reboot), renewing
// (dhcpv4.renew) or rebinding (dhcpv4.rebind), until bound again (ok) or anything else (error). A child span
// per phase passed through. Exported only when the ObservabilityPipeline configures OTLP traces.
import { Operation, type SpanRecord } from "@routerd/daemon-kit";
import type { Phase } from "./fsm-types.js";
import type { DhcpLease } from "./lease.js";

const STARTS: Partial<Record<Phase, string>> = { init: "dhcpv4.acquire", selecting: "dhcpv4.acquire", rebooting: "dhcpv4.reboot", renewing: "dhcpv4.renew", rebinding: "dhcpv4.rebind" };
const IN_PROGRESS = new Set<Phase>(["init", "selecting", "requesting", "checking", "rebooting", "renewing", "rebinding"]);

export class LeaseTransactions {
  private op: Operation | undefined;

  constructor(
    private readonly instance: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** Feeds a phase change; returns the span of a transaction this change ended. */
  change(from: Phase, to: Phase, lease: DhcpLease | null): SpanRecord | undefined {
    if (from === to) return undefined;
    const op = this.op;
    if (!op) {
      const name = STARTS[to];
      if (name) this.op = new Operation(name, { "routerd.instance": this.instance, "dhcpv4.from": from }, this.now);
      return undefined;
    }
    op.step(from);
    if (IN_PROGRESS.has(to)) return undefined;
    this.op = undefined;
    if (to === "bound" && lease) return op.finish({ "dhcpv4.address": `${lease.address}/${lease.prefixLength}`, "dhcpv4.server": lease.serverId, "dhcpv4.lease_time": lease.leaseTime });
    return op.finish({}, `ended in ${to}`);
  }
}
