import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FileLock, LockBusyError, withLock, writeFileAtomic } from "./atomic-file.js";
import { Ledger } from "./ledger.js";
import { LEDGER_FILE, ledgerPath, listBackups, readLedger, writeLedger } from "./ledger-store.js";
import { SRC, exited, firstLine, killAll, sleep, spawnNode } from "./testdata/children.mjs";
import { transpileSources } from "./testdata/transpile.mjs";

let tmp: string;
let modules: string;

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "rd-resource-atomic-"));
  modules = transpileSources(SRC, join(tmp, "modules"));
});
afterEach(() => killAll());
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const tmpFiles = (dir: string) => readdirSync(dir).filter((f) => f.endsWith(".tmp"));

describe("writeFileAtomic", () => {
  it("replaces the file with exactly the new content, its mode, and no temp file left", () => {
    const dir = join(tmp, "plain");
    const path = join(dir, "sub", "state.json");
    writeFileAtomic(path, "old\n", 0o600);
    writeFileAtomic(path, Buffer.from("new\n"), 0o600);
    expect(readFileSync(path, "utf8")).toBe("new\n");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(tmpFiles(join(dir, "sub"))).toEqual([]);
  });

  it("removes its temp file when the rename fails and leaves the target alone", () => {
    const dir = join(tmp, "rename-fails");
    const target = join(dir, "target");
    mkdirSync(join(target, "not-empty"), { recursive: true });
    expect(() => writeFileAtomic(target, "data")).toThrow(/EISDIR|ENOTEMPTY|EEXIST/);
    expect(tmpFiles(dir)).toEqual([]);
    expect(statSync(target).isDirectory()).toBe(true);
  });

  it("a writer killed with SIGKILL at random moments leaves the old or the new ledger, never a torn one", async () => {
    const ENTRIES = 1000; // about 1 MB per write
    const KILLS_PER_LANE = 15; // two lanes (own state dirs) run side by side: 30 kills
    const interrupted = { ledger: 0, raw: 0 };

    const lane = async (stateDir: string) => {
      let lastGeneration = 0;
      for (let k = 0; k < KILLS_PER_LANE; k++) {
        const mode = k % 2 === 0 ? "ledger" : "raw";
        const child = spawnNode("crash-writer.mjs", [mode, modules, stateDir, String(ENTRIES)]);
        expect(await firstLine(child)).toBe("ready");
        await sleep(Math.random() * 30);
        child.kill("SIGKILL");
        await exited(child);

        // Strict parse: a truncated or mixed file throws LedgerFormatError here.
        const ledger = Ledger.parse(readFileSync(ledgerPath(stateDir), "utf8"), ledgerPath(stateDir));
        expect(ledger.size).toBe(ENTRIES);
        // One snapshot: every entry was recorded for the generation the file carries.
        expect(new Set(ledger.list().map((e) => e.generation))).toEqual(new Set([ledger.generation]));
        // Each child completed a write before "ready" and only writes newer generations after it.
        expect(ledger.generation).toBeGreaterThan(lastGeneration);
        lastGeneration = ledger.generation;
        if (tmpFiles(stateDir).some((f) => f.includes(`.${child.pid}.`))) interrupted[mode]++;
      }
      return lastGeneration;
    };
    const dirs = [join(tmp, "crash-a"), join(tmp, "crash-b")];
    const generations = await Promise.all(dirs.map(lane));

    // Only meaningful if kills hit writes in progress (each such kill leaves its temp file behind).
    expect(interrupted.ledger + interrupted.raw).toBeGreaterThan(0);

    // Leftover temp files are not the ledger: readers ignore them, backups ignore them, writes go on.
    const stateDir = dirs[0]!;
    expect(tmpFiles(stateDir).every((f) => f.startsWith(`.${LEDGER_FILE}.`))).toBe(true);
    const ledger = readLedger(stateDir);
    expect(ledger.generation).toBe(generations[0]);
    expect(listBackups(stateDir)).toEqual([]);
    writeLedger(stateDir, ledger);
    expect(readLedger(stateDir).generation).toBe(generations[0]! + 1);
  }, 180_000);
});

describe("FileLock", () => {
  it("keeps processes mutually exclusive: concurrent read-modify-write loses no update", async () => {
    const dir = join(tmp, "counter");
    mkdirSync(dir);
    const counter = join(dir, "counter");
    const WORKERS = 3;
    const ROUNDS = 30;
    const children = Array.from({ length: WORKERS }, () => spawnNode("lock-worker.mjs", ["count", modules, join(dir, "lock"), counter, String(ROUNDS)]));
    const codes = await Promise.all(children.map(exited));
    expect(codes).toEqual(Array(WORKERS).fill(0));
    expect(Number(readFileSync(counter, "utf8"))).toBe(WORKERS * ROUNDS);
    expect(existsSync(join(dir, "lock"))).toBe(false);
  }, 30_000);

  it("writes the holder's pid into the lock and removes it on release", () => {
    const path = join(tmp, "pid", "lock");
    const lock = FileLock.acquire(path);
    expect(Number.parseInt(readFileSync(path, "utf8"), 10)).toBe(process.pid);
    lock.release();
    lock.release();
    expect(existsSync(path)).toBe(false);
    expect(withLock(path, () => readFileSync(path, "utf8").split("\n")[0])).toBe(String(process.pid));
    expect(existsSync(path)).toBe(false);
  });

  it("does not let the same process take its own lock twice", () => {
    const path = join(tmp, "reentrant", "lock");
    const lock = FileLock.acquire(path);
    try {
      expect(() => FileLock.acquire(path, 1_000)).toThrow(LockBusyError);
    } finally {
      lock.release();
    }
  });

  it("times out with LockBusyError naming a live holder", () => {
    const path = join(tmp, "live", "lock");
    mkdirSync(join(tmp, "live"));
    writeFileSync(path, "1\n"); // pid 1 is always alive
    let caught: unknown;
    try {
      FileLock.acquire(path, 60);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(LockBusyError);
    expect((caught as LockBusyError).holderPid).toBe(1);
    expect((caught as LockBusyError).message).toMatch(/locked by pid 1/);
    expect(readFileSync(path, "utf8")).toBe("1\n");
  });

  it("takes over a lock written before a reboot even if its pid is alive now, not one from this boot", () => {
    const bootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    const dir = join(tmp, "reboot");
    mkdirSync(dir);
    const path = join(dir, "lock");
    writeFileSync(path, `1\n${bootId}\n`);
    expect(() => FileLock.acquire(path, 40)).toThrow(LockBusyError);
    writeFileSync(path, "1\n00000000-0000-4000-8000-000000000000\n");
    const lock = FileLock.acquire(path, 40);
    expect(readFileSync(path, "utf8")).toBe(`${process.pid}\n${bootId}\n`);
    lock.release();
    expect(readdirSync(dir)).toEqual([]);
  });

  const deadPid = () => {
    const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
    return Number(r.stdout);
  };
  it.each([
    ["a process that has exited", deadPid],
    ["a pid above the kernel's limit", () => 4_194_305],
  ])("takes over a lock held by %s", (_label, holder) => {
    const pid = holder();
    const dir = join(tmp, `stale-${pid}`);
    mkdirSync(dir);
    const path = join(dir, "lock");
    writeFileSync(path, `${pid}\n`);
    const lock = FileLock.acquire(path, 200);
    expect(Number.parseInt(readFileSync(path, "utf8"), 10)).toBe(process.pid);
    lock.release();
    expect(readdirSync(dir)).toEqual([]);
  });
});
