// The rest of the host routerd relies on: writable sysctls, sockets it can create, a sane clock, free space.
import { accessSync, constants, existsSync, readFileSync, readdirSync, statSync, statfsSync } from "node:fs";
import { dirname, join } from "node:path";
import { connect } from "node:net";
import { fail, ok, run, warn, type DoctorCheck, type DoctorContext, type Finding } from "./check.js";

const MiB = 1024 * 1024;
/** sun_path holds 108 bytes with the terminating NUL. */
const SOCKET_PATH_MAX = 107;
const LONGEST_SOCKET = "dhcpv6-client/a-long-instance-name.sock";

function nearestExisting(path: string): string {
  let p = path;
  while (!existsSync(p) && dirname(p) !== p) p = dirname(p);
  return p;
}

function sysctls(): Finding[] {
  const path = "/proc/sys/net/ipv4/ip_forward";
  if (!existsSync(path)) return [fail("sysctl", `${path} is missing`, "mount /proc (routerd reads and writes kernel settings there)")];
  const value = readFileSync(path, "utf8").trim();
  try {
    accessSync(path, constants.W_OK);
  } catch {
    return [fail("sysctl", "/proc/sys is not writable", "run as root, outside a read-only /proc/sys (containers mount it read-only)")];
  }
  return [ok("sysctl", `/proc/sys writable; net.ipv4.ip_forward = ${value}${value === "0" ? " (a SysctlProfile router-linux turns it on)" : ""}`)];
}

function freeSpace(check: string, dir: string, minMiB: number, failMiB: number): Finding {
  const at = nearestExisting(dir);
  const s = statfsSync(at);
  const free = s.bavail * s.bsize;
  const text = `${Math.floor(free / MiB)} MiB free at ${at}`;
  if (free < failMiB * MiB) return fail(check, text, `free space on the filesystem of ${dir}: routerd writes state atomically (temp file, then rename)`);
  if (free < minMiB * MiB) return warn(check, text, `keep at least ${minMiB} MiB free for ${dir}`);
  return ok(check, text);
}

async function serveAnswers(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(socket);
    const done = (v: boolean) => {
      s.destroy();
      resolve(v);
    };
    s.once("connect", () => done(true));
    s.once("error", () => done(false));
    setTimeout(() => done(false), 1000);
  });
}

async function sockets(ctx: DoctorContext): Promise<Finding[]> {
  const out: Finding[] = [];
  const longest = join(ctx.runDir, LONGEST_SOCKET);
  if (longest.length > SOCKET_PATH_MAX) out.push(fail("sockets", `socket paths under ${ctx.runDir} get too long (${longest.length} > ${SOCKET_PATH_MAX} bytes)`, "use a shorter --run-dir (default /run/routerd)"));
  const base = nearestExisting(ctx.runDir);
  try {
    accessSync(base, constants.W_OK);
    out.push(ok("sockets", `${ctx.runDir} ${base === ctx.runDir ? "is writable" : `can be created (in ${base})`}`));
  } catch {
    out.push(fail("sockets", `${base} is not writable`, `run as root, or point --run-dir at a writable directory`));
  }
  const core = join(ctx.runDir, "routerd", "core.sock");
  if (!existsSync(core)) out.push(ok("sockets", "routerd serve is not running (no core.sock)"));
  else if (await serveAnswers(core)) out.push(ok("sockets", "routerd serve answers on core.sock"));
  else out.push(warn("sockets", `${core} exists but nobody answers`, "a stale socket from a crash: start routerd serve (it replaces it), or remove it"));
  return out;
}

/** Newest modification time under the state dir (one level deep), to notice a clock that went back. */
function newestStateMtime(stateDir: string): number | undefined {
  if (!existsSync(stateDir)) return undefined;
  const times = readdirSync(stateDir).map((f) => statSync(join(stateDir, f)).mtimeMs);
  return times.length ? Math.max(...times) : undefined;
}

function clock(ctx: DoctorContext): Finding[] {
  const out: Finding[] = [];
  if (ctx.now < Date.parse("2024-01-01T00:00:00Z")) out.push(fail("clock", `the clock says ${new Date(ctx.now).toISOString()}`, "set the time (lease and certificate times depend on it): start chrony or systemd-timesyncd"));
  const newest = newestStateMtime(ctx.stateDir);
  if (newest !== undefined && newest > ctx.now + 60_000) out.push(warn("clock", `files in ${ctx.stateDir} are from ${new Date(newest).toISOString()}, in the future`, "the clock went back: check time synchronisation before trusting lease times"));
  const sync = run("timedatectl", ["show", "-p", "NTPSynchronized", "--value"]);
  if (sync.code === 0 && sync.out === "yes") out.push(ok("clock", `${new Date(ctx.now).toISOString()}, synchronised (NTP)`));
  else if (sync.code === 0) out.push(warn("clock", `${new Date(ctx.now).toISOString()}, not synchronised`, "enable time synchronisation: timedatectl set-ntp true, or chrony"));
  else if (existsSync("/run/systemd/timesync/synchronized")) out.push(ok("clock", `${new Date(ctx.now).toISOString()}, synchronised (systemd-timesyncd)`));
  else out.push(warn("clock", `${new Date(ctx.now).toISOString()}; cannot tell whether it is synchronised (no systemd time service answering)`, "run chrony or systemd-timesyncd so lease and log times stay right"));
  return out;
}

export const SYSTEM_CHECKS: DoctorCheck[] = [
  { name: "sysctl", run: sysctls },
  { name: "sockets", run: sockets },
  { name: "clock", run: clock },
  { name: "disk", run: (ctx) => [freeSpace("disk", ctx.stateDir, 64, 16), freeSpace("disk", ctx.runDir, 4, 1)] },
];
