// The long-lived `ip -batch` is replaced after recycleAfter lines (iproute2 keeps memory per line it ran),
// only between chunks with nothing in flight, and chunks keep resolving in order across the replacement.
// A stand-in for ip answers each sentinel line the way ip does ("Command failed -:N").
import pino from "pino";
import { describe, expect, it } from "vitest";
import { IpBatch } from "./ip-batch.js";

const FAKE_IP = [
  process.execPath,
  "-e",
  `let n = 0;
  require("node:readline").createInterface({ input: process.stdin }).on("line", (l) => {
    n++;
    if (l.startsWith("bad")) process.stdout.write("Error: bad line\\n");
    if (l === "routerd-chunk-done" || l.startsWith("bad")) process.stdout.write("Command failed -:" + n + "\\n");
  });`,
];

describe("IpBatch", () => {
  it("replaces the process after recycleAfter lines, between chunks, keeping each chunk's results", async () => {
    const batch = new IpBatch(pino({ level: "silent" }), FAKE_IP, 5);
    const first = batch.submit(["route replace a", "route replace b"]);
    const pidA = batch.pid;
    expect(batch.draining).toBe(false);
    expect((await first).failed.size).toBe(0);
    const second = batch.submit(["route replace c", "bad d"]);
    expect(batch.pid).toBe(pidA); // 3 + 3 lines: now due, but it was not before this chunk
    expect(batch.draining).toBe(true);
    expect([...(await second).failed]).toEqual([[1, "Error: bad line"]]);
    const third = batch.submit(["bad e"]);
    expect(batch.pid).not.toBe(pidA);
    expect([...(await third).failed]).toEqual([[0, "Error: bad line"]]);
    batch.close();
  });
});
