// An owned block in a provider's config file (NTPClient): written whole inside its markers, the provider told
// (chronyc reload sources) only when the file's text changed, never when a reconcile finds it as it is, and
// told again when the block is removed. The runner only records what the executor asks to run: the decision
// under test is whether it asks at all (the real chronyc reload is in test-e2e/ntp/chrony.test.ts).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CommandRunner } from "../exec.js";
import { deleteFileBlock, writeFileBlock } from "./system.js";

describe("an owned config block tells its provider only about a change", () => {
  it("reloads chrony after a write that changed the file, not after one that found it as it is; again on removal", async () => {
    const root = mkdtempSync(join(tmpdir(), "routerd-block-"));
    try {
      const calls: string[] = [];
      const runner: CommandRunner = { run: async (cmd, args) => (calls.push([cmd, ...args].join(" ")), { code: 0, stdout: "", stderr: "" }) };
      const ctx = { root, stateDir: join(root, "state"), runDir: join(root, "run"), runner };
      // chronyd "runs" here: its command socket exists under the root.
      mkdirSync(join(root, "run/chrony"), { recursive: true });
      writeFileSync(join(root, "run/chrony/chronyd.sock"), "");
      const sources = join(root, "etc/chrony/sources.d/routerd.sources");
      const attrs = { path: "/etc/chrony/sources.d/routerd.sources", block: "ntp-time", reload: "chrony", content: "server 192.0.2.123 iburst\n" };
      const reload = `chronyc -h ${join(root, "run/chrony/chronyd.sock")} reload sources`;

      await writeFileBlock(ctx, attrs);
      expect(readFileSync(sources, "utf8")).toBe("# BEGIN routerd ntp-time\nserver 192.0.2.123 iburst\n# END routerd ntp-time\n");
      expect(calls).toEqual([reload]);
      await writeFileBlock(ctx, attrs);
      await writeFileBlock(ctx, attrs);
      expect(calls).toEqual([reload]);
      await writeFileBlock(ctx, { ...attrs, content: "server 192.0.2.124 iburst\n" });
      expect(calls).toEqual([reload, reload]);
      await deleteFileBlock(ctx, attrs);
      expect(readFileSync(sources, "utf8")).toBe("");
      expect(calls).toEqual([reload, reload, reload]);
      await deleteFileBlock(ctx, attrs);
      expect(calls).toHaveLength(3);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
