// Under `routerd serve --supervisor systemd`: the daemons systemd runs from the units reconcile generated
// still get their config files from serve, written before the apply that may start their unit; a changed
// config is then delivered as the built-in supervisor would: `systemctl try-reload-or-restart` (ExecReload
// sends SIGHUP), or try-restart for a daemon that needs one. Under a test root only the files are written.
import { existsSync, readFileSync } from "node:fs";
import type { HostContext } from "@routerd/host";
import { writeFileAtomic } from "@routerd/resource";
import type { Logger } from "pino";
import { daemonUnitName } from "../core/service-units.js";
import type { DaemonSpec } from "./supervisor.js";

export class UnitDaemons {
  /** Units whose config changed since they were last told. */
  private readonly changed = new Map<string, "reload" | "restart">();

  constructor(
    private readonly host: Pick<HostContext, "root" | "runner">,
    private readonly logger: Logger,
  ) {}

  /** Writes the configs that differ from what is on disk (sync: called while the desired state is computed). */
  write(specs: readonly DaemonSpec[]): void {
    for (const s of specs) {
      if (!s.config) continue;
      if (existsSync(s.config.path) && readFileSync(s.config.path, "utf8") === s.config.content) continue;
      writeFileAtomic(s.config.path, s.config.content, 0o600);
      this.changed.set(daemonUnitName(s.daemon, s.instance), s.restartOnConfigChange ? "restart" : "reload");
    }
  }

  /** After the apply: tells systemd about the changed configs (a unit that is not running is left alone). */
  async deliver(): Promise<void> {
    const real = this.host.root === "/" || this.host.root === "";
    for (const [unit, how] of [...this.changed]) {
      this.changed.delete(unit);
      if (!real) continue;
      const r = await this.host.runner.run("systemctl", [how === "restart" ? "try-restart" : "try-reload-or-restart", unit]);
      if (r.code !== 0) this.logger.warn({ unit, error: (r.stderr || r.stdout).trim() }, "systemd did not take the new config");
    }
  }
}
