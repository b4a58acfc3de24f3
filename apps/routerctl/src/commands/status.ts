import type { Command } from "@routerd/cli";
import { statusToJson, statusToText } from "../format.js";
import { SOCKET_OPTIONS, withDaemon } from "./common.js";

export const statusCommand: Command = {
  name: "status",
  summary: "routerd's own status: per-resource phase, last reconcile, cluster role",
  usage: "status [--json] [--run-dir DIR]",
  description: "Asks `routerd serve` over <run-dir>/routerd/core.sock. Exit 1 when serve is not answering.",
  options: SOCKET_OPTIONS,
  examples: [{ command: "routerctl status --json | jq .details", description: "last reconcile, its summary, supervised daemons" }],
  seeAlso: ["routerctl get", "routerctl events"],
  run: (v, io) =>
    withDaemon(v, io, "routerd", "core", async (c) => {
      const s = await c.getStatus();
      io.out(v.json ? JSON.stringify(statusToJson(s), null, 2) : statusToText(s));
    }),
};
