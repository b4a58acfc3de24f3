// Executors for what tunnels add besides their links: VXLAN flood entries and FOU/GUE receive ports.
import type { Attributes } from "@routerd/resource";
import { CommandError, type CommandRunner } from "../exec.js";

const ZERO_MAC = "00:00:00:00:00:00";

async function run(runner: CommandRunner, command: string, args: string[]): Promise<void> {
  const r = await runner.run(command, args);
  if (r.code !== 0) throw new CommandError(`${command} ${args.join(" ")}`, r, r.stderr.trim() || `exit ${r.code}`);
}

export function addFdb(runner: CommandRunner, a: Attributes): Promise<void> {
  return run(runner, "bridge", ["fdb", "append", ZERO_MAC, "dev", String(a.ifname), "dst", String(a.dst)]);
}

export function deleteFdb(runner: CommandRunner, a: Attributes): Promise<void> {
  return run(runner, "bridge", ["fdb", "del", ZERO_MAC, "dev", String(a.ifname), "dst", String(a.dst)]);
}

/** FOU's generic-netlink family does not load on demand: load the module first (it may be built in). */
export async function addFou(runner: CommandRunner, a: Attributes): Promise<void> {
  await runner.run("modprobe", ["fou"]);
  const kind = a.encap === "gue" ? ["gue"] : ["ipproto", String(a.ipproto)];
  return run(runner, "ip", ["fou", "add", "port", String(a.port), ...kind]);
}

export function deleteFou(runner: CommandRunner, a: Attributes): Promise<void> {
  return run(runner, "ip", ["fou", "del", "port", String(a.port)]);
}
