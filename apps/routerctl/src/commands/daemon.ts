import type { Command } from "@routerd/cli";
import { statusToJson, statusToText } from "../format.js";
import { CommandFailed, SOCKET_OPTIONS, withDaemon } from "./common.js";

const USAGE = "daemon NAME[/INSTANCE] (status | command CMD [KEY=VALUE ...]) [--json] [--run-dir DIR]";

export const daemonCommand: Command = {
  name: "daemon",
  summary: "one daemon: its status, or run one of its commands (renew, release, reload, ...)",
  usage: USAGE,
  options: SOCKET_OPTIONS,
  positionals: [
    { name: "NAME[/INSTANCE]", description: "the daemon and its instance (default instance: default)", complete: ["routerd/core", "healthcheck", "dhcpv4-client/", "dhcpv6-client/"] },
    { name: "status|command", description: "print its status, or run CMD with KEY=VALUE arguments" },
  ],
  examples: [
    { command: "routerctl daemon healthcheck status", description: "the health check daemon's status" },
    { command: "routerctl daemon dhcpv4-client/wan command renew", description: "renew the DHCPv4 lease on wan now" },
    { command: "routerctl daemon dhcpv6-client/wan command release", description: "release the delegated prefix" },
  ],
  exitCodes: { 0: "success", 1: "the daemon is not answering, refused the command, or the arguments are wrong" },
  run(v, io, positionals) {
    const [target, verb, name, ...rest] = positionals;
    const usage = () => {
      io.err(`usage: routerctl ${USAGE}`);
      return Promise.resolve(1);
    };
    if (!target || (verb !== "status" && verb !== "command") || (verb === "command" && !name)) return usage();
    const args: Record<string, string> = {};
    for (const kv of rest) {
      const i = kv.indexOf("=");
      if (i <= 0) return usage();
      args[kv.slice(0, i)] = kv.slice(i + 1);
    }
    const [daemon, instance] = target.split("/") as [string, string?];
    return withDaemon(v, io, daemon, instance || "default", async (c) => {
      if (verb === "status") {
        const s = await c.getStatus();
        io.out(v.json ? JSON.stringify(statusToJson(s), null, 2) : statusToText(s));
        return;
      }
      const r = await c.command(name!, args);
      const details = r.detailsJson ? (JSON.parse(r.detailsJson) as unknown) : undefined;
      if (v.json) io.out(JSON.stringify({ ok: r.ok, message: r.message, ...(details !== undefined ? { details } : {}) }, null, 2));
      else (r.ok ? io.out : io.err)(`${r.ok ? "ok" : "failed"}: ${r.message}`);
      if (!r.ok) throw new CommandFailed(r.message);
    });
  },
};
