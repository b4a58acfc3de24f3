// launchDaemon starts a daemon with routerd's program environment (MALLOC_ARENA_MAX, as its systemd unit),
// unless serve's own environment names the variable: a real child process reports what it got.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROGRAM_ENVIRONMENT } from "@routerd/render";
import { afterEach, describe, expect, it } from "vitest";
import { launchDaemon } from "./supervisor.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Runs a shell as the daemon that writes $MALLOC_ARENA_MAX to a file; what it wrote. */
async function arenaMaxSeen(env: NodeJS.ProcessEnv): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "routerd-supervisor-"));
  dirs.push(dir);
  const out = join(dir, "seen");
  const spec = { daemon: "probe", instance: "t", match: "sh", command: ["/bin/sh", "-c", `printf '%s' "$MALLOC_ARENA_MAX" > ${out}.tmp && mv ${out}.tmp ${out}`] };
  const pid = launchDaemon(spec, { runDir: join(dir, "run"), stateDir: join(dir, "state") }, env);
  expect(pid).toBeGreaterThan(0);
  for (let i = 0; i < 200 && !existsSync(out); i++) await new Promise((r) => setTimeout(r, 25));
  return readFileSync(out, "utf8");
}

describe("launchDaemon's environment", () => {
  it("sets MALLOC_ARENA_MAX for the daemon (allocator arenas of helper threads)", async () => {
    expect(PROGRAM_ENVIRONMENT.MALLOC_ARENA_MAX).toBe("2");
    const { MALLOC_ARENA_MAX: _, ...env } = process.env;
    expect(await arenaMaxSeen(env)).toBe("2");
  });

  it("leaves an operator's own setting in serve's environment alone", async () => {
    expect(await arenaMaxSeen({ ...process.env, MALLOC_ARENA_MAX: "4" })).toBe("4");
  });
});
