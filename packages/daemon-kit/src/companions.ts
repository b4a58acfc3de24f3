// Companions: programs a daemon starts detached so they survive its restart (routerd-bgp's gobgpd and
// bfdd). Each is recorded in <daemon state dir>/companions/<name>.pid as {pid, match}; the rule that keeps
// them from outliving their daemon for good:
// - whoever removes the daemon (routerd serve's supervisor) stops the recorded companions after it;
// - each companion has a keeper (a small sh loop) that stops it once no live daemon has owned it for a
//   grace period (the daemon was killed and nobody restarted it). A restarted daemon writes the owner file
//   again within the grace and re-attaches.
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pidAlive, writeFileAtomic } from "@routerd/resource";

export const COMPANIONS_DIR = "companions";
/** The daemon that owns the companions: {pid, match} like a companion record. */
export const OWNER_FILE = "owner.pid";

export interface CompanionRecord {
  pid: number;
  /** A word of /proc/<pid>/cmdline that identifies the program (pids get reused). */
  match: string;
  /** Left running on purpose for the next daemon to re-attach (otherwise one found running is stale). */
  kept?: boolean;
}

export function companionsDir(daemonStateDir: string): string {
  return join(daemonStateDir, COMPANIONS_DIR);
}

/** The process at `pid` is alive and still the program we started. */
export function processMatches(pid: number, match: string): boolean {
  if (!pidAlive(pid)) return false;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").some((a) => a.includes(match));
  } catch {
    return false;
  }
}

export function writeCompanionRecord(path: string, rec: CompanionRecord): void {
  writeFileAtomic(path, JSON.stringify(rec) + "\n", 0o600);
}

export function readCompanionRecord(path: string): CompanionRecord | undefined {
  try {
    const rec = JSON.parse(readFileSync(path, "utf8")) as Partial<CompanionRecord>;
    if (!Number.isInteger(rec.pid) || typeof rec.match !== "string") return undefined;
    return { pid: rec.pid!, match: rec.match, ...(rec.kept === true ? { kept: true } : {}) };
  } catch {
    return undefined;
  }
}

/** SIGTERM, then SIGKILL after graceMs; resolves once the process is gone (or is not ours any more). */
export async function terminateProcess(pid: number, match: string, graceMs = 5000): Promise<void> {
  if (!processMatches(pid, match)) return;
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    return;
  }
  const until = Date.now() + graceMs;
  while (processMatches(pid, match) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  if (processMatches(pid, match)) process.kill(pid, "SIGKILL");
}

/** Stops every live companion recorded under the daemon's state dir (keepers included); returns their names. */
export async function stopCompanions(daemonStateDir: string, graceMs = 5000): Promise<string[]> {
  const dir = companionsDir(daemonStateDir);
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith(".pid"));
  } catch {
    return [];
  }
  const stopped: string[] = [];
  await Promise.all(
    files.map(async (f) => {
      const rec = readCompanionRecord(join(dir, f));
      if (rec !== undefined && processMatches(rec.pid, rec.match)) {
        await terminateProcess(rec.pid, rec.match, graceMs);
        stopped.push(f.slice(0, -".pid".length));
      }
      rmSync(join(dir, f), { force: true });
    }),
  );
  return stopped.sort();
}

// $1 companion pid, $2 its match word, $3 owner file, $4 grace in polls, $5 poll seconds. The owner file
// holds {"pid":N,...}; its program must still name $6 in its cmdline. The first poll that finds no owner may
// come just after it died, so the companion is stopped only after grace more polls also found none: never
// sooner than the grace after the owner's death (at most one poll later).
const KEEPER_SCRIPT = `
c=$1 cm=$2 owner=$3 grace=$4 poll=$5 om=$6 n=0
ours() { [ -e /proc/$1 ] && grep -qaF -- "$2" /proc/$1/cmdline 2>/dev/null; }
while ours "$c" "$cm"; do
  o=$(sed -n 's/.*"pid":\\([0-9]*\\).*/\\1/p' "$owner" 2>/dev/null)
  if [ -n "$o" ] && ours "$o" "$om"; then n=0; else n=$((n+1)); fi
  if [ "$n" -gt "$grace" ]; then
    kill "$c" 2>/dev/null
    i=0; while ours "$c" "$cm" && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
    ours "$c" "$cm" && kill -9 "$c" 2>/dev/null
    exit 0
  fi
  sleep "$poll"
done
`;

export interface KeeperOptions {
  companion: CompanionRecord;
  ownerFile: string;
  /** The owner's program word (its cmdline must contain it). */
  ownerMatch: string;
  graceMs: number;
  pollMs?: number;
}

/** The word in a keeper's cmdline that names its companion (for its own record). */
export const keeperMatch = (companion: CompanionRecord): string => `routerd-keeper:${companion.pid}`;

/** Starts the keeper of one companion (detached, own process group); it ends when the companion does. */
export function spawnKeeper(o: KeeperOptions): CompanionRecord {
  const pollMs = o.pollMs ?? 1000;
  const polls = Math.max(1, Math.ceil(o.graceMs / pollMs));
  const child = spawn(
    "/bin/sh",
    ["-c", KEEPER_SCRIPT, keeperMatch(o.companion), String(o.companion.pid), o.companion.match, o.ownerFile, String(polls), String(pollMs / 1000), o.ownerMatch],
    { detached: true, stdio: "ignore" },
  );
  child.unref();
  return { pid: child.pid!, match: keeperMatch(o.companion) };
}

/** Records this process as the companions' owner (the keepers watch it). */
export function writeOwnerRecord(daemonStateDir: string, match: string): string {
  const dir = companionsDir(daemonStateDir);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "..", OWNER_FILE);
  writeCompanionRecord(path, { pid: process.pid, match });
  return path;
}
