// Where a process's resident memory is, by kind of mapping (/proc/<pid>/smaps, read from outside: the
// process is not disturbed): the malloc main arena ([heap], brk), malloc's per-thread arenas (64 MiB
// reservations, 64 MiB aligned, of which the used part is read-write), anonymous executable pages (V8
// code), the other anonymous mappings (V8's heap pages, large malloc blocks mmapped on their own, thread
// stacks) and file pages (node's binary, libraries). Tells allocator pages from V8's.
// Usage: node bench/soak/smaps.mjs PID [PID...]   (prints one JSON line per pid, figures in MB)
import { readFileSync } from "node:fs";

const ARENA = 64 * 1024 * 1024; // glibc's HEAP_MAX_SIZE on 64-bit hosts

/** Resident bytes per kind of mapping, and how many malloc thread arenas the process has. */
export function smapsBreakdown(pid) {
  const text = readFileSync(`/proc/${pid}/smaps`, "utf8");
  const maps = [];
  let cur;
  for (const line of text.split("\n")) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S{4}) \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (head) {
      cur = { start: BigInt(`0x${head[1]}`), end: BigInt(`0x${head[2]}`), perms: head[3], inode: head[4], name: head[5], rss: 0 };
      maps.push(cur);
    } else if (cur && line.startsWith("Rss:")) cur.rss = Number(/(\d+)/.exec(line)[1]) * 1024;
  }
  const out = { mallocMain: 0, mallocArenas: 0, arenaCount: 0, anonExec: 0, anonOther: 0, file: 0, stack: 0 };
  for (let i = 0; i < maps.length; i++) {
    const m = maps[i];
    const anon = m.inode === "0" && (m.name === "" || m.name.startsWith("[anon"));
    if (m.name === "[heap]") out.mallocMain += m.rss;
    else if (m.name === "[stack]") out.stack += m.rss;
    else if (!anon) out.file += m.rss;
    else if (m.perms.includes("x")) out.anonExec += m.rss;
    else if (isArena(m, maps[i + 1])) {
      out.mallocArenas += m.rss;
      out.arenaCount++;
    } else out.anonOther += m.rss;
  }
  return out;
}

/** A thread arena: starts on a 64 MiB boundary, read-write, and with the inaccessible rest of its reservation spans 64 MiB. */
function isArena(m, next) {
  if (!m.perms.startsWith("rw") || m.start % BigInt(ARENA) !== 0n) return false;
  if (m.end - m.start === BigInt(ARENA)) return true;
  return next !== undefined && next.start === m.end && next.perms.startsWith("---") && next.end - m.start === BigInt(ARENA);
}

export const inMB = (b) => Object.fromEntries(Object.entries(b).map(([k, v]) => [k, k === "arenaCount" ? v : Math.round((v / 1e6) * 100) / 100]));

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const pid of process.argv.slice(2)) console.log(JSON.stringify({ pid: Number(pid), ...inMB(smapsBreakdown(pid)) }));
}
