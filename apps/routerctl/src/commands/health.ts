import type { Command } from "@routerd/cli";
import { statusToJson } from "../format.js";
import { SOCKET_OPTIONS, withDaemon } from "./common.js";

export const healthCommand: Command = {
  name: "health",
  summary: "health checks and their states (Unknown, Passing, Healthy, Failing, Unhealthy)",
  usage: "health [--json] [--run-dir DIR]",
  description: "Asks the health check daemon over <run-dir>/healthcheck/default.sock.",
  options: SOCKET_OPTIONS,
  examples: [{ command: "routerctl health", description: "one line per HealthCheck: name, state, last result" }],
  run: (v, io) =>
    withDaemon(v, io, "healthcheck", "default", async (c) => {
      const s = await c.getStatus();
      if (v.json) io.out(JSON.stringify(statusToJson(s).resources, null, 2));
      else for (const r of s.resources) io.out(`${r.name.padEnd(24)} ${r.phase.padEnd(10)} ${r.message}`);
    }),
};
