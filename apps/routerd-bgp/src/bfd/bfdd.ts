// FRR's bfdd as a companion of routerd-bgp: its config is routerd-bgp's own file (never /etc/frr), its
// sockets and pid file under <run-dir>/bgp/<router>.bfdd/, no TCP vty, no zebra (the -z socket is one
// nobody listens on). It runs as root (-u root -g frrvty: FRR insists the user be in its vty group) so it
// can read a config file in routerd's private state dir. FRR leaves a scratch dir /var/tmp/frr/bfdd.<pid>
// behind; it is removed once that bfdd is gone.
import { rmSync } from "node:fs";
import type { Logger } from "pino";
import { CompanionProcess } from "../companion.js";
import type { bfddPaths } from "../names.js";

export type BfddPaths = ReturnType<typeof bfddPaths>;

export const BFDD_BINARY = "/usr/lib/frr/bfdd";

export function bfddArgs(paths: BfddPaths): string[] {
  return ["-u", "root", "-g", "frrvty", "-f", paths.config, "-i", paths.pidFile, "--vty_socket", paths.vtyDir, "-z", paths.zebra, "--bfdctl", paths.control, "-A", "127.0.0.1", "-P", "0", "--log", `file:${paths.logFile}`];
}

export function bfddProcess(o: { paths: BfddPaths; binary?: string; logger: Logger; owner?: { file: string; match: string; graceMs: number }; keep?: boolean }): CompanionProcess {
  return new CompanionProcess({
    name: "bfdd",
    binary: o.binary ?? BFDD_BINARY,
    args: bfddArgs(o.paths),
    match: o.paths.control,
    recordDir: o.paths.recordDir,
    logFile: `${o.paths.logFile}.stdout`,
    removeFiles: [o.paths.control, o.paths.pidFile, `${o.paths.vtyDir}/bfdd.vty`],
    ...(o.owner !== undefined ? { owner: o.owner } : {}),
    logger: o.logger,
    keep: o.keep === true,
    afterExit: (pid) => rmSync(`/var/tmp/frr/bfdd.${pid}`, { recursive: true, force: true }),
  });
}
