import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EVENT_LOG_FILE, EventLog, eventLogFiles, parseEventLines, recoverEvents } from "./event-log.js";
import type { DaemonEvent } from "./types.js";

function ev(seq: number, message = `event ${seq}`): DaemonEvent {
  return { seq, time: "2026-01-01T00:00:00.000Z", topic: "test.event", severity: "info", resource: "", message, attributes: { n: String(seq) } };
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "rd-eventlog-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("parseEventLines", () => {
  it("skips torn and foreign lines", () => {
    const text = [JSON.stringify(ev(1)), '{"seq":2,"time":"x","top', JSON.stringify({ seq: 3 }), "", JSON.stringify(ev(4))].join("\n");
    expect(parseEventLines(text).map((e) => e.seq)).toEqual([1, 4]);
  });
});

describe("EventLog", () => {
  it("appends one JSON line per event and recovers the last seq", () => {
    const log = new EventLog(dir);
    for (let s = 1; s <= 3; s++) log.append(ev(s));
    log.close();
    const lines = readFileSync(join(dir, EVENT_LOG_FILE), "utf8").trimEnd().split("\n");
    expect(lines.map((l) => (JSON.parse(l) as DaemonEvent).seq)).toEqual([1, 2, 3]);
    expect(statSync(join(dir, EVENT_LOG_FILE)).mode & 0o777).toBe(0o600);
    const recovered = recoverEvents(dir, 3, 10);
    expect(recovered.lastSeq).toBe(3);
    expect(recovered.recent.map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it("rotates by size and keeps only `keep` old files", () => {
    const lineBytes = Buffer.byteLength(JSON.stringify(ev(10)) + "\n");
    const log = new EventLog(dir, { maxBytes: lineBytes * 4, keep: 2 });
    for (let s = 10; s < 30; s++) log.append(ev(s)); // 20 events, 4 per file
    log.close();
    const files = eventLogFiles(dir, 4);
    expect(files.map((f) => existsSync(f))).toEqual([true, true, true, false, false]);
    for (const f of files.slice(0, 3)) expect(statSync(f).size).toBeLessThanOrEqual(lineBytes * 4);
    const seqsIn = (f: string): number[] => parseEventLines(readFileSync(f, "utf8")).map((e) => e.seq);
    expect(seqsIn(files[0]!)).toEqual([26, 27, 28, 29]);
    expect(seqsIn(files[1]!)).toEqual([22, 23, 24, 25]);
    expect(seqsIn(files[2]!)).toEqual([18, 19, 20, 21]);
  });

  it("recovers recent events across rotated files, newest last, bounded by the limit", () => {
    const lineBytes = Buffer.byteLength(JSON.stringify(ev(10)) + "\n");
    const log = new EventLog(dir, { maxBytes: lineBytes * 3, keep: 3 });
    for (let s = 10; s < 20; s++) log.append(ev(s));
    log.close();
    expect(recoverEvents(dir, 3, 5).recent.map((e) => e.seq)).toEqual([15, 16, 17, 18, 19]);
    expect(recoverEvents(dir, 3, 100).recent.map((e) => e.seq)).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
    expect(recoverEvents(dir, 3, 0)).toEqual({ lastSeq: 19, recent: [] });
  });

  it("finds the last seq in a rotated file when the current one is empty", () => {
    writeFileSync(join(dir, `${EVENT_LOG_FILE}.1`), JSON.stringify(ev(41)) + "\n" + JSON.stringify(ev(42)) + "\n");
    writeFileSync(join(dir, EVENT_LOG_FILE), "");
    expect(recoverEvents(dir, 3, 10).lastSeq).toBe(42);
  });

  it("starts a fresh line after a torn last line so the next event stays readable", () => {
    writeFileSync(join(dir, EVENT_LOG_FILE), JSON.stringify(ev(1)) + "\n" + '{"seq":2,"ti');
    const log = new EventLog(dir);
    log.append(ev(3));
    log.close();
    expect(parseEventLines(readFileSync(join(dir, EVENT_LOG_FILE), "utf8")).map((e) => e.seq)).toEqual([1, 3]);
  });

  it("with keep 0 rotation discards the old file", () => {
    const lineBytes = Buffer.byteLength(JSON.stringify(ev(10)) + "\n");
    const log = new EventLog(dir, { maxBytes: lineBytes * 2, keep: 0 });
    for (let s = 10; s < 15; s++) log.append(ev(s));
    log.close();
    expect(existsSync(join(dir, `${EVENT_LOG_FILE}.1`))).toBe(false);
    expect(recoverEvents(dir, 0, 10).recent.map((e) => e.seq)).toEqual([14]);
  });

  it("keeps seq strictly increasing when rotated files overlap", () => {
    appendFileSync(join(dir, `${EVENT_LOG_FILE}.1`), [ev(1), ev(2), ev(3)].map((e) => JSON.stringify(e) + "\n").join(""));
    appendFileSync(join(dir, EVENT_LOG_FILE), [ev(3), ev(4)].map((e) => JSON.stringify(e) + "\n").join(""));
    expect(recoverEvents(dir, 1, 10).recent.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
  });
});
