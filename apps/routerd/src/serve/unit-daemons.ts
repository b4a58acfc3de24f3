// Under `routerd serve --supervisor systemd|rc.d`: the daemons systemd or rc runs from the units or scripts
// reconcile generated still get their config files from serve, written before the apply that may start them;
// a changed config is then delivered as the built-in supervisor would: systemd `try-reload-or-restart`
// (ExecReload sends SIGHUP) or try-restart; rc.d `service <name> reload` (SIGHUP) or restart, only when
// `service <name> status` says it runs. Under a test root only the files are written.
import { existsSync, readFileSync } from "node:fs";
import type { HostContext } from "@routerd/host";
import { writeFileAtomic } from "@routerd/resource";
import type { Logger } from "pino";
import { serviceName, type SupervisorMode } from "../core/service-units.js";
import type { DaemonSpec } from "./supervisor.js";

export class UnitDaemons {
  /** Units whose config changed since they were last told. */
  private readonly changed = new Map<string, "reload" | "restart">();

  constructor(
    private readonly host: Pick<HostContext, "root" | "runner">,
    private readonly logger: Logger,
    private readonly mode: Exclude<SupervisorMode, "builtin"> = "systemd",
  ) {}

  /** Writes the configs that differ from what is on disk (sync: called while the desired state is computed). */
  write(specs: readonly DaemonSpec[]): void {
    for (const s of specs) {
      if (!s.config) continue;
      if (existsSync(s.config.path) && readFileSync(s.config.path, "utf8") === s.config.content) continue;
      writeFileAtomic(s.config.path, s.config.content, 0o600);
      this.changed.set(serviceName(this.mode, s.daemon, s.instance), s.restartOnConfigChange ? "restart" : "reload");
    }
  }

  /** After the apply: tells systemd or rc about the changed configs (a unit or script that is not running is left alone). */
  async deliver(): Promise<void> {
    const real = this.host.root === "/" || this.host.root === "";
    for (const [unit, how] of [...this.changed]) {
      this.changed.delete(unit);
      if (!real) continue;
      const r = this.mode === "systemd" ? await this.host.runner.run("systemctl", [how === "restart" ? "try-restart" : "try-reload-or-restart", unit]) : await this.rc(unit, how);
      if (r && r.code !== 0) this.logger.warn({ unit, error: (r.stderr || r.stdout).trim() }, `${this.mode} did not take the new config`);
    }
  }

  /** rc.d has no try-reload: a script whose daemon does not run is left alone (undefined). */
  private async rc(script: string, how: "reload" | "restart") {
    const running = await this.host.runner.run("service", [script, "status"]);
    return running.code === 0 ? this.host.runner.run("service", [script, how]) : undefined;
  }
}
