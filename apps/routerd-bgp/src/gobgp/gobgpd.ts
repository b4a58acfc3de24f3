// gobgpd as a companion: its API listens on a Unix socket only (never a routed address), pprof off.
import type { Logger } from "pino";
import { CompanionProcess } from "../companion.js";
import type { gobgpdPaths } from "../names.js";

export type GobgpdPaths = ReturnType<typeof gobgpdPaths>;

export interface GobgpdOptions {
  paths: GobgpdPaths;
  binary?: string;
  logger: Logger;
  /** gobgpd's log level (its log goes to paths.logFile, truncated at each start). */
  logLevel?: string;
  owner?: { file: string; match: string; graceMs: number };
  /** Outlive routerd-bgp on purpose (--keep-gobgpd); otherwise it dies with routerd-bgp. */
  keep?: boolean;
}

/** gobgpd's command line (also the bench's "gobgpd alone", so both run the same gobgpd). */
export const gobgpdArgs = (socket: string, logLevel = "info") => [`--api-hosts=unix://${socket}`, "--pprof-disable", "--log-plain", `--log-level=${logLevel}`];

export function gobgpdProcess(o: GobgpdOptions): CompanionProcess {
  const { socket, recordDir, logFile } = o.paths;
  return new CompanionProcess({
    name: "gobgpd",
    binary: o.binary ?? "gobgpd",
    args: gobgpdArgs(socket, o.logLevel),
    match: socket,
    recordDir,
    logFile,
    removeFiles: [socket],
    ...(o.owner !== undefined ? { owner: o.owner } : {}),
    logger: o.logger,
    keep: o.keep === true,
  });
}
