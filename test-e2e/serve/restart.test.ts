// kill -9 of a daemon and of routerd serve itself: the daemon comes back with its state, a restarted serve
// re-attaches instead of starting a duplicate, and nothing routerd owns is lost.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { daemonPid, killAll, processesMentioning } from "../lib/daemons.js";
import { routerctl, startServe, until, type ServeProcess } from "../lib/serve.js";
import { TwoUplinks } from "../lib/two-uplinks.mjs";

let t: InstanceType<typeof TwoUplinks>;
let serve: ServeProcess;
const healthcheckProcesses = () => processesMentioning(t.dirs.runDir).filter((pid) => processesMentioning("routerd-healthcheck").includes(pid));
const probes = () => (routerctl(t.router, ["health"], t.dirs.runDir).json as { name: string; phase: string }[] | undefined) ?? [];
const start = () => (serve = startServe(t.router, { config: t.config, ...t.dirs }));

beforeAll(async () => {
  t = new TwoUplinks();
  t.writeConfig({ failbackDelay: "3s" });
  start();
  await until("both probes healthy", () => probes().filter((p) => p.phase === "Healthy").length === 2, 30_000, 200);
});
afterAll(async () => {
  await serve?.stop("SIGKILL");
  if (t) {
    await killAll(t.dirs.runDir);
    t.destroy();
  }
});

describe("restarts", () => {
  it("restarts a killed daemon, which resumes its probe states", async () => {
    const before = daemonPid(t.dirs.runDir, "healthcheck", "default")!;
    process.kill(before, "SIGKILL");
    const after = await until("a new healthcheck pid", () => {
      const pid = daemonPid(t.dirs.runDir, "healthcheck", "default");
      return pid && pid !== before ? pid : undefined;
    });
    expect(after).not.toBe(before);
    // Resumed from its state file: Healthy at once, not Unknown first.
    const first = await until("the restarted daemon answers", () => (probes().length ? probes() : undefined));
    expect(first.map((p) => p.phase)).toEqual(["Healthy", "Healthy"]);
    expect(healthcheckProcesses()).toEqual([after]);
  });

  it("re-attaches to running daemons after serve is killed, without duplicates or lost state", async () => {
    const daemon = daemonPid(t.dirs.runDir, "healthcheck", "default")!;
    const ledgerBefore = routerctl(t.router, ["status"], t.dirs.runDir).json as { resources: { name: string; phase: string }[] };
    await serve.stop("SIGKILL");
    expect(healthcheckProcesses()).toEqual([daemon]); // the daemon outlives serve
    start();
    await until("serve answers again", () => (routerctl(t.router, ["status"], t.dirs.runDir).json as { phase?: string } | undefined)?.phase);
    await new Promise((r) => setTimeout(r, 3000)); // a couple of cycles
    expect(daemonPid(t.dirs.runDir, "healthcheck", "default")).toBe(daemon);
    expect(healthcheckProcesses()).toEqual([daemon]);
    const after = routerctl(t.router, ["status"], t.dirs.runDir).json as { resources: { name: string; phase: string }[] };
    expect(after.resources.filter((r) => r.phase !== "Ready").map((r) => r.name)).toEqual([]);
    expect(after.resources.length).toBe(ledgerBefore.resources.length);
    expect(t.currentUplink()).toBe(1);
  });
});
