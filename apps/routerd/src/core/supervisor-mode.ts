// Which supervisor runs the daemons on this host, remembered in the state dir: `routerd serve --supervisor`
// (and reconcile/apply given --supervisor) record it, so a later plan or reconcile without the flag plans
// the same artifacts (units under systemd, supervised daemons otherwise) instead of undoing them.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { RouterdError, writeFileAtomic } from "@routerd/resource";
import { SUPERVISORS, type SupervisorMode } from "./service-units.js";

const FILE = "supervisor";

export function parseSupervisorMode(value: unknown): SupervisorMode {
  const s = String(value);
  if ((SUPERVISORS as readonly string[]).includes(s)) return s as SupervisorMode;
  throw new RouterdError("BadOption", `--supervisor ${s} is not a supervisor`, { hint: `write one of ${SUPERVISORS.join(", ")}` });
}

const NEEDS: Readonly<Partial<Record<SupervisorMode, { platform: NodeJS.Platform; os: string; other: SupervisorMode }>>> = {
  systemd: { platform: "linux", os: "Linux", other: "rc.d" },
  "rc.d": { platform: "freebsd", os: "FreeBSD", other: "systemd" },
};

/** On the real root a service manager's artifacts are for this OS only (a test root takes either: nothing is started). */
export function checkSupervisorHost(mode: SupervisorMode, root: string, platform: NodeJS.Platform = process.platform): void {
  const need = NEEDS[mode];
  if (!need || (root !== "/" && root !== "") || platform === need.platform) return;
  throw new RouterdError("BadOption", `--supervisor ${mode} generates ${mode === "systemd" ? "systemd units" : "rc.d scripts"}, which run on ${need.os} only (this host is ${platform})`, {
    hint: platform === NEEDS[need.other]?.platform ? `write --supervisor ${need.other} (or builtin)` : "write --supervisor builtin, or --root DIR to only render the files",
  });
}

/** The recorded mode, or builtin when none was recorded (or the record is unreadable). */
export function readSupervisorMode(stateDir: string): SupervisorMode {
  try {
    return parseSupervisorMode(readFileSync(join(stateDir, FILE), "utf8").trim());
  } catch {
    return "builtin";
  }
}

export function recordSupervisorMode(stateDir: string, mode: SupervisorMode): void {
  if (readSupervisorModeRaw(stateDir) === mode) return;
  writeFileAtomic(join(stateDir, FILE), `${mode}\n`, 0o644);
}

function readSupervisorModeRaw(stateDir: string): string | undefined {
  try {
    return readFileSync(join(stateDir, FILE), "utf8").trim();
  } catch {
    return undefined;
  }
}
