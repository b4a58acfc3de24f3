import type { Command } from "@routerd/cli";
import { plainReconcile } from "../generations/revert.js";
import { parseKeep } from "@routerd/resource";
import { WATCHDOG_COMMAND, raisePriority, watch } from "../generations/watchdog.js";
import { KEEP_OPTION } from "./apply-run.js";
import { COMMON_OPTIONS, hostContext } from "./common.js";

/** Started detached by `apply --confirm-within`; not meant to be typed. */
export const confirmWatchdogCommand: Command = {
  name: WATCHDOG_COMMAND,
  summary: "internal: revert the pending change with this id when its deadline passes",
  usage: `${WATCHDOG_COMMAND} --id ID [--state-dir DIR] [--root DIR] [--run-dir DIR]`,
  hidden: true,
  options: { id: { type: "string", valueName: "ID", description: "the pending confirmation to watch" }, ...KEEP_OPTION, ...COMMON_OPTIONS },
  async run(v, io) {
    if (!v.id) {
      io.err(`${WATCHDOG_COMMAND} needs --id`);
      return 1;
    }
    const host = hostContext(v);
    const log = (line: string) => io.out(`${new Date().toISOString()} watchdog ${process.pid}: ${line}`);
    raisePriority();
    log(`watching pending change ${v.id}`);
    await watch({ stateDir: host.stateDir, command: "routerd confirm-watchdog", keep: parseKeep(v["keep-generations"]), reconcile: plainReconcile(host) }, String(v.id), log);
    return 0;
  },
};
