// keepalived.conf and FreeBSD CARP goldens: every folder under testdata/ holds a router.yaml and the expected
// keepalived.conf, carp-rc.conf and carp-sysctl.conf. `ROUTERD_UPDATE_GOLDEN=1` rewrites them;
// test-e2e/vrrp/keepalived.test.ts runs `keepalived --config-test` on each keepalived.conf.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig, makeConfigView } from "@routerd/api";
import { describe, expect, it } from "vitest";
import { renderCarp } from "./carp.js";
import { renderKeepalivedConfig } from "./keepalived.js";

const TESTDATA = new URL("./testdata", import.meta.url).pathname;
const UPDATE = process.env.ROUTERD_UPDATE_GOLDEN === "1";
export const GOLDEN_PATHS = { verdictDir: "/var/lib/routerd/healthcheck/default/verdicts", roleDir: "/run/routerd/keepalived" };

describe.each(readdirSync(TESTDATA).sort())("vrrp golden %s", (name) => {
  const dir = join(TESTDATA, name);
  const file = join(dir, "router.yaml");
  const loaded = loadConfig(readFileSync(file, "utf8"), file);
  const golden = (f: string, actual: string) => {
    if (UPDATE) writeFileSync(join(dir, f), actual);
    expect(actual).toBe(readFileSync(join(dir, f), "utf8"));
  };

  it("loads without errors", () => expect(loaded.issues.filter((i) => i.severity === "error")).toEqual([]));
  it("renders keepalived.conf", () => golden("keepalived.conf", renderKeepalivedConfig(makeConfigView(loaded.config!), GOLDEN_PATHS)));
  it("renders CARP for FreeBSD", () => {
    const carp = renderCarp(makeConfigView(loaded.config!));
    golden("carp-rc.conf", carp.rcConf);
    golden("carp-sysctl.conf", carp.sysctlConf);
  });
});
