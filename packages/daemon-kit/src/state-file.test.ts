import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { STATE_FILE, loadState, saveState, type StateDocument } from "./state-file.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "rd-state-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const doc: StateDocument = {
  version: 1,
  daemon: "dhcpv4-client",
  instance: "wan",
  savedAt: "2026-01-01T00:00:00.000Z",
  lastEventSeq: 17,
  status: {
    conditions: [],
    resources: [
      {
        name: "wan",
        kind: "DHCPv4Lease",
        phase: "Bound",
        message: "",
        conditions: [{ type: "Bound", status: "True", reason: "Ack", message: "", lastTransitionTime: "2026-01-01T00:00:00.000Z" }],
        details: { address: "192.0.2.10" },
        updatedAt: "2026-01-01T00:00:00.000Z",
      },
    ],
  },
  data: { lease: { address: "192.0.2.10", expires: "2026-01-01T01:00:00.000Z" } },
};

describe("state file", () => {
  it("round-trips through an atomic write with mode 0600 and no temp files left", () => {
    saveState(dir, doc);
    expect(loadState(dir).document).toEqual(doc);
    expect(statSync(join(dir, STATE_FILE)).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual([STATE_FILE]);
  });

  it("is absent before the first save", () => {
    expect(loadState(dir)).toEqual({ document: undefined });
  });

  it("moves an unreadable file aside instead of deleting it", () => {
    writeFileSync(join(dir, STATE_FILE), '{"version": 1, "daemon": ');
    const loaded = loadState(dir, new Date("2026-02-03T04:05:06.789Z"));
    expect(loaded.document).toBeUndefined();
    expect(loaded.error?.message).toMatch(/not JSON/);
    expect(loaded.quarantined).toBe(join(dir, `${STATE_FILE}.corrupt-2026-02-03T04-05-06-789Z`));
    expect(readFileSync(loaded.quarantined!, "utf8")).toBe('{"version": 1, "daemon": ');
    expect(existsSync(join(dir, STATE_FILE))).toBe(false);
  });

  it("rejects a document of another version or shape", () => {
    writeFileSync(join(dir, STATE_FILE), JSON.stringify({ ...doc, version: 2 }));
    expect(loadState(dir).error?.message).toMatch(/not a version 1 daemon state document/);
    writeFileSync(join(dir, STATE_FILE), JSON.stringify({ ...doc, status: { conditions: [{ type: "x", status: "Maybe" }], resources: [] } }));
    expect(loadState(dir).error).toBeDefined();
  });
});
