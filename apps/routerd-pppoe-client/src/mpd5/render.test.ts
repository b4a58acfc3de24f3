// Golden files for mpd5's files (FreeBSD): testdata/<case>.json holds a session config; <case>.mpd.conf,
// <case>.mpd.secret and <case>.up are the expected texts. ROUTERD_UPDATE_GOLDEN=1 rewrites them.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseSessionConfig } from "../config.js";
import { mpdLabel, renderMpdConf, renderMpdScript, renderMpdSecret } from "./render.js";

const TESTDATA = new URL("./testdata", import.meta.url).pathname;
const PPPD_TESTDATA = new URL("../pppd/testdata", import.meta.url).pathname;
const UPDATE = process.env.ROUTERD_UPDATE_GOLDEN === "1";

function golden(path: string, actual: string): void {
  if (UPDATE) writeFileSync(path, actual);
  expect(actual).toBe(readFileSync(path, "utf8"));
}

// The same session configs as pppd's golden files: one config, two engines.
const cases = readdirSync(PPPD_TESTDATA).filter((f) => f.endsWith(".json")).map((f) => f.slice(0, -5)).sort();
const dir = "/var/db/routerd/pppoe-client";

describe.each(cases)("mpd5 files for %s", (name) => {
  const config = parseSessionConfig(JSON.parse(readFileSync(join(PPPD_TESTDATA, `${name}.json`), "utf8")));
  const hook = { node: "/usr/local/bin/node", program: "/usr/local/lib/routerd/bin/routerd-pppoe-client.js", socket: `/var/run/routerd/pppoe-client/${name}.sock`, log: `${dir}/${name}/mpd5/hooks.log` };
  it("mpd.conf", () => golden(join(TESTDATA, `${name}.mpd.conf`), renderMpdConf(config, { instance: name, upScript: `${dir}/${name}/mpd5/up`, downScript: `${dir}/${name}/mpd5/down` })));
  it("mpd.secret", () => golden(join(TESTDATA, `${name}.mpd.secret`), renderMpdSecret(config.username, config.password ?? "from-file", name)));
  it("up-script", () => golden(join(TESTDATA, `${name}.up`), renderMpdScript("up", hook)));
});

describe("labels", () => {
  it("keep only what mpd5 takes in a label", () => expect(mpdLabel("flets-east.1")).toBe("routerd_flets_east_1"));
});
