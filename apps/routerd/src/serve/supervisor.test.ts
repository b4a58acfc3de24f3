// launchDaemon starts a daemon with routerd's program environment (MALLOC_ARENA_MAX, as its systemd unit) and
// its spec's own (routerd-bgp's MALLOC_TRIM_THRESHOLD_, as its launcher's shebang), unless serve's own environment
// names the variable: a real child process reports what it got.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { programEnvironment } from "@routerd/daemon-kit/v8-flags";
import { PROGRAM_ENVIRONMENT } from "@routerd/render";
import { afterEach, describe, expect, it } from "vitest";
import { launchDaemon } from "./supervisor.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Runs a shell as the daemon that writes $NAME to a file; what it wrote. */
async function seen(env: NodeJS.ProcessEnv, name = "MALLOC_ARENA_MAX", environment?: Record<string, string>): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "routerd-supervisor-"));
  dirs.push(dir);
  const out = join(dir, "seen");
  const spec = { daemon: "probe", instance: "t", match: "sh", command: ["/bin/sh", "-c", `printf '%s' "$${name}" > ${out}.tmp && mv ${out}.tmp ${out}`], ...(environment ? { environment } : {}) };
  const pid = launchDaemon(spec, { runDir: join(dir, "run"), stateDir: join(dir, "state") }, env);
  expect(pid).toBeGreaterThan(0);
  for (let i = 0; i < 200 && !existsSync(out); i++) await new Promise((r) => setTimeout(r, 25));
  return readFileSync(out, "utf8");
}

describe("launchDaemon's environment", () => {
  it("sets MALLOC_ARENA_MAX for the daemon (allocator arenas of helper threads)", async () => {
    expect(PROGRAM_ENVIRONMENT.MALLOC_ARENA_MAX).toBe("2");
    const { MALLOC_ARENA_MAX: _, ...env } = process.env;
    expect(await seen(env)).toBe("2");
  });

  it("leaves an operator's own setting in serve's environment alone", async () => {
    expect(await seen({ ...process.env, MALLOC_ARENA_MAX: "4" })).toBe("4");
  });

  it("adds the spec's own environment (routerd-bgp's, from daemon-kit's table), serve's value winning", async () => {
    const { MALLOC_TRIM_THRESHOLD_: _, ...env } = process.env;
    const environment = programEnvironment("routerd-bgp");
    expect(environment.MALLOC_TRIM_THRESHOLD_).toBe("131072");
    expect(await seen(env, "MALLOC_TRIM_THRESHOLD_", environment)).toBe("131072");
    expect(await seen({ ...env, MALLOC_TRIM_THRESHOLD_: "262144" }, "MALLOC_TRIM_THRESHOLD_", environment)).toBe("262144");
    expect(await seen(env, "MALLOC_TRIM_THRESHOLD_")).toBe("");
  });
});
