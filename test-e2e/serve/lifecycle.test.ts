// routerd serve follows the config file: a change is applied without a restart, daemons whose resources
// left the config are torn down with their socket and state, and an invalid file keeps the last good config.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { daemonPid, killAll } from "../lib/daemons.js";
import { routerctl, startServe, until, type ServeProcess } from "../lib/serve.js";
import { TwoUplinks } from "../lib/two-uplinks.mjs";

let t: InstanceType<typeof TwoUplinks>;
let serve: ServeProcess;
const tables = () => t.router.exec("nft", ["list", "tables"]).stdout;

beforeAll(async () => {
  t = new TwoUplinks();
  t.writeConfig({ failbackDelay: "3s" });
  serve = startServe(t.router, { config: t.config, ...t.dirs });
  await until("healthcheck running and policy applied", () => daemonPid(t.dirs.runDir, "healthcheck", "default") && tables().includes("routerd_policy"), 30_000, 200);
});
afterAll(async () => {
  await serve?.stop("SIGKILL");
  if (t) {
    await killAll(t.dirs.runDir);
    t.destroy();
  }
});

describe("routerd serve lifecycle", () => {
  it("applies a changed config and tears down the daemon whose resources left it", async () => {
    const doc = JSON.parse(readFileSync(t.config, "utf8")) as { spec: { resources: { kind: string }[] } };
    doc.spec.resources = doc.spec.resources.filter((r) => r.kind !== "HealthCheck" && r.kind !== "EgressRoutePolicy");
    const pid = daemonPid(t.dirs.runDir, "healthcheck", "default")!;
    writeFileSync(t.config, JSON.stringify(doc));
    await until("policy table removed", () => !tables().includes("routerd_policy"), 15_000, 200);
    await until("healthcheck stopped", () => {
      try {
        process.kill(pid, 0);
        return false;
      } catch {
        return true;
      }
    });
    expect(existsSync(join(t.dirs.runDir, "healthcheck", "default.sock"))).toBe(false);
    expect(existsSync(join(t.dirs.stateDir, "healthcheck", "default"))).toBe(false);
    await until("the ledger forgot the daemon", () => !readFileSync(join(t.dirs.stateDir, "artifacts.json"), "utf8").includes("routerd.daemon"));
    expect(tables()).toContain("routerd_nat");
  });

  it("reports a missing daemon socket clearly, as text and as JSON", () => {
    const r = routerctl(t.router, ["health"], t.dirs.runDir);
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({ error: { code: "ENOENT", socket: join(t.dirs.runDir, "healthcheck", "default.sock") } });
  });

  it("keeps the last good config when the file becomes invalid, and says so", async () => {
    const good = readFileSync(t.config, "utf8");
    const doc = JSON.parse(good) as { spec: { resources: { spec: Record<string, unknown> }[] } };
    doc.spec.resources[0]!.spec.bogus = true;
    writeFileSync(t.config, JSON.stringify(doc));
    await until("config.invalid event", () => routerctl(t.router, ["events", "--topic", "config.invalid"], t.dirs.runDir).stdout.includes("bogus"), 10_000, 300);
    const status = routerctl(t.router, ["status"], t.dirs.runDir).json as { phase: string };
    expect(status.phase).toBe("PHASE_RUNNING");
    expect(tables()).toContain("routerd_nat");
    writeFileSync(t.config, good);
  });
});
