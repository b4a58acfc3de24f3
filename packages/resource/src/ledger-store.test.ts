import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ownerKey } from "./artifact.js";
import { LockBusyError } from "./atomic-file.js";
import { LEDGER_API_VERSION, Ledger, LedgerFormatError } from "./ledger.js";
import { BACKUPS_KEPT, LEDGER_FILE, LedgerSession, backupLedger, ledgerPath, listBackups, readLedger, writeLedger } from "./ledger-store.js";
import { STATUS_FILE, StatusFormatError, readStatuses, writeStatuses, type ObjectStatus } from "./status.js";
import { SRC, exited, firstLine, killAll, spawnNode } from "./testdata/children.mjs";
import { transpileSources } from "./testdata/transpile.mjs";

const OWNER = ownerKey("net.routerd.net/v1alpha1", "NAT44Rule", "lan");

let tmp: string;
let modules: string;
let n = 0;
const freshDir = () => join(tmp, `state-${++n}`);

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "rd-resource-store-"));
  modules = transpileSources(SRC, join(tmp, "modules"));
});
afterEach(() => killAll());
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function recordTable(ledger: Ledger, table: string) {
  ledger.record({ kind: "nft.table", name: `ip/${table}`, owners: [OWNER], ownership: "created", state: "present", attributes: { table } });
}

describe("readLedger / writeLedger", () => {
  it("reads a missing ledger as empty (first run) and round-trips what it wrote, mode 0600", () => {
    const dir = freshDir();
    expect(readLedger(dir).size).toBe(0);
    const l = readLedger(dir);
    recordTable(l, "routerd_nat");
    writeLedger(dir, l);
    expect(l.generation).toBe(1);
    expect(statSync(ledgerPath(dir)).mode & 0o777).toBe(0o600);
    const back = readLedger(dir);
    expect(back.toDocument()).toEqual(l.toDocument());
    expect(JSON.parse(readFileSync(ledgerPath(dir), "utf8")).apiVersion).toBe(LEDGER_API_VERSION);
  });

  it.each([
    ["bad JSON", "{ not json"],
    ["wrong apiVersion", JSON.stringify({ apiVersion: "routerd.net/ledger/v0", generation: 1, entries: [] })],
    ["a bad entry", JSON.stringify({ apiVersion: LEDGER_API_VERSION, generation: 1, entries: [{ kind: "linux.link" }] })],
    ["an empty file", ""],
  ])("a ledger with %s is a LedgerFormatError, never an empty ledger", (_label, text) => {
    const dir = freshDir();
    mkdirSync(dir);
    writeFileSync(ledgerPath(dir), text);
    expect(() => readLedger(dir)).toThrow(LedgerFormatError);
    // LedgerSession refuses too, and does not keep the lock after refusing.
    expect(() => LedgerSession.open(dir)).toThrow(LedgerFormatError);
    expect(existsSync(join(dir, "routerd.lock"))).toBe(false);
    expect(readFileSync(ledgerPath(dir), "utf8")).toBe(text);
  });
});

describe("backups", () => {
  it(`more than ${BACKUPS_KEPT} destructive saves keep exactly the newest ${BACKUPS_KEPT}`, () => {
    const dir = freshDir();
    const session = LedgerSession.open(dir);
    try {
      session.save(); // first write: nothing to back up yet
      const SAVES = BACKUPS_KEPT + 5;
      for (let i = 0; i < SAVES; i++) {
        recordTable(session.ledger, `routerd_t${i}`);
        session.save({ destructive: true });
      }
      const backups = listBackups(dir);
      expect(backups).toHaveLength(BACKUPS_KEPT);
      // A backup holds the ledger as it was before that save: generations 1..SAVES were backed up.
      const generations = backups.map((b) => Ledger.parse(readFileSync(b, "utf8"), b).generation);
      expect(generations).toEqual(Array.from({ length: BACKUPS_KEPT }, (_, i) => SAVES - BACKUPS_KEPT + 1 + i));
      expect(readLedger(dir).generation).toBe(SAVES + 1);
    } finally {
      session.close();
    }
  });

  it("orders backups taken within the same millisecond by when they were taken", () => {
    const dir = freshDir();
    const l = new Ledger();
    const now = new Date("2026-03-04T05:06:07.089Z");
    const taken: string[] = [];
    for (let i = 0; i < BACKUPS_KEPT + 3; i++) {
      writeLedger(dir, l);
      taken.push(backupLedger(dir, now)!);
    }
    const kept = listBackups(dir);
    expect(kept).toEqual(taken.slice(-BACKUPS_KEPT));
    expect(kept.map((b) => Ledger.parse(readFileSync(b, "utf8"), b).generation)).toEqual(
      Array.from({ length: BACKUPS_KEPT }, (_, i) => i + 4),
    );
  });

  it("has nothing to back up before the first ledger, and names backups by time", () => {
    const dir = freshDir();
    expect(backupLedger(dir)).toBeUndefined();
    expect(listBackups(dir)).toEqual([]);
    writeLedger(dir, new Ledger());
    const b = backupLedger(dir, new Date("2026-03-04T05:06:07.089Z"))!;
    expect(basename(b)).toMatch(/^artifacts-2026-03-04T05-06-07-089Z.*\.json$/);
    expect(readFileSync(b, "utf8")).toBe(readFileSync(ledgerPath(dir), "utf8"));
  });

  it("ignores files in backups/ that are not ledger backups", () => {
    const dir = freshDir();
    writeLedger(dir, new Ledger());
    mkdirSync(join(dir, "backups"));
    writeFileSync(join(dir, "backups", "notes.txt"), "keep me");
    writeFileSync(join(dir, "backups", `.${LEDGER_FILE}.123.abcd.tmp`), "half");
    for (let i = 0; i < BACKUPS_KEPT + 2; i++) backupLedger(dir);
    expect(listBackups(dir)).toHaveLength(BACKUPS_KEPT);
    expect(readdirSync(join(dir, "backups"))).toEqual(expect.arrayContaining(["notes.txt", `.${LEDGER_FILE}.123.abcd.tmp`]));
  });
});

describe("LedgerSession lock between processes", () => {
  it("a second process gets LockBusyError naming the holder; a patient one waits until it is released", async () => {
    const dir = freshDir();
    const holder = spawnNode("lock-worker.mjs", ["hold", modules, dir, "300"]);
    expect(await firstLine(holder)).toBe("locked");

    const impatient = spawnNode("lock-worker.mjs", ["try", modules, dir, "100"]);
    const verdict = JSON.parse(await firstLine(impatient)) as { ok: boolean; name?: string; holderPid?: number };
    expect(verdict).toMatchObject({ ok: false, name: "LockBusyError", holderPid: holder.pid });
    await exited(impatient);

    // This process waits (blocking) until the holder lets go; the holder touches `releasing` first.
    holder.kill("SIGUSR1");
    const session = LedgerSession.open(dir, 20_000);
    try {
      expect(readFileSync(join(dir, "releasing"), "utf8")).toBe(String(holder.pid));
      expect(Number.parseInt(readFileSync(join(dir, "routerd.lock"), "utf8"), 10)).toBe(process.pid);
    } finally {
      session.close();
    }
    expect(await exited(holder)).toBe(0);
    expect(existsSync(join(dir, "routerd.lock"))).toBe(false);
  }, 30_000);

  it("a session of a process killed with SIGKILL does not block the next one", async () => {
    const dir = freshDir();
    const holder = spawnNode("lock-worker.mjs", ["hold", modules, dir, "60000"]);
    expect(await firstLine(holder)).toBe("locked");
    expect(() => LedgerSession.open(dir, 50)).toThrow(LockBusyError);
    holder.kill("SIGKILL");
    await exited(holder);
    const session = LedgerSession.open(dir, 1_000);
    session.close();
    expect(existsSync(join(dir, "releasing"))).toBe(false);
  }, 30_000);
});

describe("object status file", () => {
  const status = (name: string): ObjectStatus => ({
    owner: ownerKey("net.routerd.net/v1alpha1", "IPv4StaticAddress", name),
    lifecycleClass: "address",
    contract: "TeardownLifecycle",
    phase: "Ready",
    artifacts: [{ kind: "linux.ipv4.address", name: `lan0/192.0.2.${name.length}/24` }],
    updatedAt: "2026-01-01T00:00:00.000Z",
  });

  it("round-trips statuses sorted by owner; missing file means none", () => {
    const dir = freshDir();
    expect(readStatuses(dir).size).toBe(0);
    const map = new Map([status("b"), status("a")].map((s) => [s.owner, s]));
    writeStatuses(dir, map);
    const back = readStatuses(dir);
    expect([...back.keys()]).toEqual([status("a").owner, status("b").owner]);
    expect(back.get(status("b").owner)).toEqual(status("b"));
  });

  it.each([["{"], ['{"statuses": {}}']])("an unreadable status file (%s) is a StatusFormatError", (text) => {
    const dir = freshDir();
    mkdirSync(dir);
    writeFileSync(join(dir, STATUS_FILE), text);
    expect(() => readStatuses(dir)).toThrow(StatusFormatError);
  });
});
