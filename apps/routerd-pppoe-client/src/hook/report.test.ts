// The hook's retry rule: it retries while the daemon's socket does not answer, but not for a pppd that is gone.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runHook } from "./report.js";

const dir = mkdtempSync(join(tmpdir(), "rd-pppoe-hook-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("runHook", () => {
  it("gives up at once when its pppd is gone, and says so in the hook log (never fails pppd)", async () => {
    const gone = spawnSync("true").pid!; // exited and reaped: that pid runs nothing of ours now
    const log = join(dir, "hooks.log");
    const started = Date.now();
    const code = await runHook(["--socket", join(dir, "absent.sock"), "--event", "ip-up", "--log", log, "--", "ppp0", "", "", "10.64.0.2", "10.64.0.1"], { PPPD_PID: String(gone) });
    expect(code).toBe(0);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(readFileSync(log, "utf8")).toMatch(/ip-up not reported: .*\(pppd is gone\)/);
  });
});
