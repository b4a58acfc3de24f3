// One sample of every routerd process: RSS, CPU time and open fds from /proc (the kernel's view), V8 heap from the
// process itself (DaemonStatus.process over its socket: one GetStatus call, as `routerctl daemon ... status`).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { smapsBreakdown } from "./smaps.mjs";

const repo = new URL("../..", import.meta.url).pathname;
const { connectDaemon, daemonSocketPath } = await import(join(repo, "packages/rpc/dist/index.js"));

/** VmRSS and its parts: anonymous memory (the heap, malloc) and file pages (the node binary's code, shared). */
function rssOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb("VmRSS"), rssAnon: kb("RssAnon"), rssFile: kb("RssFile") };
}

/** The C heap (malloc's main and thread arenas, how many arenas) and V8's code pages, from smaps. */
function whereOf(pid) {
  const b = smapsBreakdown(pid);
  return { malloc: b.mallocMain + b.mallocArenas, arenas: b.arenaCount, code: b.anonExec };
}

/** CPU time the process has used so far (user + system, seconds), from /proc/<pid>/stat (clock ticks of 1/100 s). */
function cpuOf(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" "); // fields from the 3rd on (state, ppid, ...)
  return { cpu: (Number(fields[11]) + Number(fields[12])) / 100 }; // utime, stime: fields 14 and 15
}

function openFds(pid) {
  return readdirSync(`/proc/${pid}/fd`).length;
}

function readPid(runDir, daemon, instance) {
  try {
    return JSON.parse(readFileSync(join(runDir, daemon, `${instance}.pid`), "utf8")).pid;
  } catch {
    return undefined;
  }
}

/** The processes to watch: serve itself and every daemon it supervises (found by their pid files). */
export function processes(runDir, servePid) {
  const out = [{ name: "routerd serve", daemon: "routerd", instance: "core", pid: servePid }];
  let daemons = [];
  try {
    daemons = readdirSync(runDir, { withFileTypes: true }).filter((d) => d.isDirectory() && d.name !== "routerd");
  } catch {
    return out;
  }
  for (const d of daemons.sort((a, b) => a.name.localeCompare(b.name))) {
    for (const f of readdirSync(join(runDir, d.name)).filter((x) => x.endsWith(".pid")).sort()) {
      const instance = f.slice(0, -4);
      const pid = readPid(runDir, d.name, instance);
      if (pid) out.push({ name: `${d.name}/${instance}`, daemon: d.name, instance, pid });
    }
  }
  return out;
}

async function heapOf(runDir, p) {
  let conn;
  try {
    conn = await connectDaemon(daemonSocketPath(runDir, p.daemon, p.instance), { connectTimeoutMs: 1000, callTimeoutMs: 2000 });
    const s = await conn.getStatus();
    return s.process ? { heapUsed: s.process.heapUsedBytes, heapTotal: s.process.heapTotalBytes, external: s.process.externalBytes } : {};
  } catch {
    return {};
  } finally {
    conn?.close();
  }
}

/** One row per process; a process that is gone (restarting) is reported with `missing: true`. */
export async function sample(runDir, servePid, t) {
  const rows = [];
  for (const p of processes(runDir, servePid)) {
    try {
      const rss = rssOf(p.pid);
      const fds = openFds(p.pid);
      rows.push({ t, name: p.name, pid: p.pid, ...rss, ...whereOf(p.pid), ...cpuOf(p.pid), fds, ...(await heapOf(runDir, p)) });
    } catch {
      rows.push({ t, name: p.name, pid: p.pid, missing: true });
    }
  }
  return rows;
}
