// Active health checks: every upstream is asked for the SOA of a name it serves (its forwarder's first match
// suffix; the root's NS for the default route) at its forwarder's interval, so health is known before
// clients need it and a down upstream is noticed coming back without client traffic.
import type { HealthcheckConfig } from "../config/config.js";
import type { Name } from "../wire/name.js";
import type { Upstream } from "./upstream.js";

export interface ProbeTarget {
  upstream: Upstream;
  check: HealthcheckConfig;
  /** The name asked about. */
  name: Name;
}

interface Probed extends ProbeTarget {
  nextAt: number;
  running: boolean;
}

const TICK_MS = 250;

export class Prober {
  private probed: Probed[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** The upstreams to watch and their checks; timing of those already watched is kept. */
  set(targets: readonly ProbeTarget[]): void {
    const before = new Map(this.probed.map((p) => [p.upstream, p]));
    this.probed = targets.map((t) => {
      const old = before.get(t.upstream);
      return { ...t, nextAt: old?.nextAt ?? this.now() + t.check.intervalMs, running: old?.running ?? false };
    });
    if (this.probed.length > 0 && this.timer === undefined) {
      this.timer = setInterval(() => this.tick(), TICK_MS);
      this.timer.unref();
    } else if (this.probed.length === 0) {
      this.stop();
    }
  }

  private tick(): void {
    const now = this.now();
    for (const p of this.probed) {
      if (p.running || now < p.nextAt) continue;
      p.running = true;
      p.nextAt = now + p.check.intervalMs;
      void p.upstream.probe(p.name, p.check.timeoutMs).finally(() => {
        p.running = false;
      });
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
