// Which daemons a config needs, and with what arguments and config file. A data-driven registry: adding a
// daemon (a DHCP client, say) is one entry here.
import { join } from "node:path";
import { durationMs, fwmarkValue, HEALTHCHECK_DAEMON, type ConfigView, type HealthCheckSpec } from "@routerd/api";
import type { DaemonSpec } from "./supervisor.js";

export interface DaemonDirs {
  runDir: string;
  stateDir: string;
}

/** Where the daemons' launchers live: beside this app in the workspace, or ROUTERD_DAEMON_DIR. */
export function daemonProgram(daemon: string): string {
  const base = process.env.ROUTERD_DAEMON_DIR ?? new URL("../../..", import.meta.url).pathname;
  return join(base, `routerd-${daemon}`, "bin", `routerd-${daemon}.js`);
}

function commonArgs(daemon: string, instance: string, dirs: DaemonDirs): string[] {
  return ["--instance", instance, "--run-dir", dirs.runDir, "--state-dir", dirs.stateDir];
}

export interface DaemonKind {
  daemon: string;
  specs(view: ConfigView, dirs: DaemonDirs): DaemonSpec[];
}

export function healthcheckConfig(view: ConfigView): { probes: Record<string, unknown>[] } {
  return {
    probes: view.all<HealthCheckSpec>("HealthCheck").map((r) => {
      const s = r.spec;
      return {
        name: r.metadata.name,
        type: s.type,
        target: s.target,
        ...(s.port !== undefined ? { port: s.port } : {}),
        ...(s.path !== undefined ? { path: s.path } : {}),
        ...(s.expectStatus !== undefined ? { expectStatus: s.expectStatus } : {}),
        ...(s.query !== undefined ? { query: s.query } : {}),
        intervalMs: durationMs(s.interval),
        timeoutMs: durationMs(s.timeout),
        healthyThreshold: s.healthyThreshold,
        unhealthyThreshold: s.unhealthyThreshold,
        ...(s.sourceAddress !== undefined ? { sourceAddress: s.sourceAddress } : {}),
        ...(s.interface !== undefined ? { interface: view.ifname(s.interface) } : {}),
        ...(s.fwmark !== undefined ? { fwmark: fwmarkValue(s.fwmark) } : {}),
      };
    }),
  };
}

export const DAEMON_KINDS: readonly DaemonKind[] = [
  {
    daemon: HEALTHCHECK_DAEMON.daemon,
    specs(view, dirs) {
      if (view.all("HealthCheck").length === 0) return [];
      const { daemon, instance } = HEALTHCHECK_DAEMON;
      const config = join(dirs.stateDir, daemon, instance, "config.json");
      return [
        {
          daemon,
          instance,
          program: daemonProgram(daemon),
          args: [...commonArgs(daemon, instance, dirs), "--config", config],
          config: { path: config, content: JSON.stringify(healthcheckConfig(view), null, 2) + "\n" },
        },
      ];
    },
  },
];

export function daemonSpecs(view: ConfigView, dirs: DaemonDirs): DaemonSpec[] {
  return DAEMON_KINDS.flatMap((k) => k.specs(view, dirs));
}
