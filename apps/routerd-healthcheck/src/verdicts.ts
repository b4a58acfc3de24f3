// One small file per probe holding its state name (Healthy, Unhealthy, ...), rewritten on every transition:
// for readers that cannot speak gRPC and must be cheap, like keepalived's track scripts
// (`grep -qsvx Unhealthy <dir>/<probe>` every second). Replaced atomically, removed with the probe.
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export class VerdictFiles {
  private readonly written = new Map<string, string>();

  constructor(private readonly dir: string) {}

  write(probe: string, state: string): void {
    if (this.written.get(probe) === state) return;
    mkdirSync(this.dir, { recursive: true });
    const tmp = join(this.dir, `.${probe}.${process.pid}.tmp`);
    writeFileSync(tmp, `${state}\n`, { mode: 0o644 });
    renameSync(tmp, join(this.dir, probe));
    this.written.set(probe, state);
  }

  remove(probe: string): void {
    rmSync(join(this.dir, probe), { force: true });
    this.written.delete(probe);
  }
}
