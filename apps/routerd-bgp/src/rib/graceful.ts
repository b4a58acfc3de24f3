// Graceful restart for the local RIB: a neighbor whose session went down keeps its paths (stale) until it
// is Established again and has gone quiet (it re-sent its table), or until its restart time is over. Then
// the stale paths it did not re-announce are swept. GoBGP 3.10 reports no End-of-RIB on the watch stream,
// so "re-sent" is "no path from it for quietMs after Established".
export class GracefulRestartTracker {
  private readonly restarting = new Map<string, { deadline: number; upAt: number | undefined; lastHeard: number }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly sweep: (neighbor: string) => void,
    private readonly quietMs = 1000,
  ) {}

  down(neighbor: string, restartMs: number, now = Date.now()): void {
    // Still restarting (Active/Connect/... cycles): the first loss set the deadline.
    if (this.restarting.has(neighbor) && this.restarting.get(neighbor)!.upAt === undefined) return;
    this.restarting.set(neighbor, { deadline: now + restartMs, upAt: undefined, lastHeard: 0 });
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.tick(), 250);
      this.timer.unref();
    }
  }

  up(neighbor: string, now = Date.now()): void {
    const r = this.restarting.get(neighbor);
    if (r !== undefined) r.upAt = now;
  }

  heard(neighbor: string, at: number): void {
    const r = this.restarting.get(neighbor);
    if (r !== undefined) r.lastHeard = at;
  }

  tick(now = Date.now()): void {
    for (const [neighbor, r] of this.restarting) {
      const relearned = r.upAt !== undefined && now - r.upAt >= this.quietMs && now - r.lastHeard >= this.quietMs;
      if (!relearned && now < r.deadline) continue;
      this.restarting.delete(neighbor);
      this.sweep(neighbor);
    }
    if (this.restarting.size === 0) this.stop();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
