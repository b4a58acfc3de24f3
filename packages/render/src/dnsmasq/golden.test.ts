// Golden files for the managed dnsmasq's config: every folder under testdata/ holds a router.yaml, an
// optional runtime.json (delegated prefixes by DHCPv6PrefixDelegation name) and the expected dnsmasq.conf.
// `ROUTERD_UPDATE_GOLDEN=1 npx vitest run --project unit packages/render` rewrites them;
// test-e2e/ipv6/dnsmasq-check.test.ts runs `dnsmasq --test` on each.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig, makeConfigView, runtimeFrom, type DelegatedPrefix, type RuntimeFact } from "@routerd/api";
import { describe, expect, it } from "vitest";
import { renderDnsmasqConfig } from "./config.js";

const TESTDATA = new URL("./testdata", import.meta.url).pathname;
const UPDATE = process.env.ROUTERD_UPDATE_GOLDEN === "1";

describe.each(readdirSync(TESTDATA).sort())("golden dnsmasq %s", (name) => {
  const dir = join(TESTDATA, name);
  const file = join(dir, "router.yaml");
  const loaded = loadConfig(readFileSync(file, "utf8"), file);
  const runtimePath = join(dir, "runtime.json");
  const prefixes = existsSync(runtimePath) ? (JSON.parse(readFileSync(runtimePath, "utf8")) as Record<string, RuntimeFact<DelegatedPrefix>>) : {};

  it("loads without errors", () => expect(loaded.issues.filter((i) => i.severity === "error")).toEqual([]));

  it("renders dnsmasq.conf as in the golden file", () => {
    const view = makeConfigView(loaded.config!, runtimeFrom({ prefixes: new Map(Object.entries(prefixes)) }));
    const actual = renderDnsmasqConfig({ view, stateDir: "/var/lib/routerd" });
    const expectedPath = join(dir, "dnsmasq.conf");
    if (UPDATE) writeFileSync(expectedPath, actual);
    expect(actual).toBe(readFileSync(expectedPath, "utf8"));
  });
});

describe("what a delegation changes in the text", () => {
  it("nothing when it is lost: dnsmasq keeps running and announces the lost prefix as deprecated", () => {
    const held = readFileSync(join(TESTDATA, "stateless-info", "dnsmasq.conf"), "utf8");
    expect(readFileSync(join(TESTDATA, "info-without-prefix", "dnsmasq.conf"), "utf8")).toBe(held);
    expect(held).not.toMatch(/2001:db8:1000/);
  });

  it("only the DNS information a DHCPv6Information passes on, and only once the client has any", () => {
    const loaded = loadConfig(readFileSync(join(TESTDATA, "stateless-info", "router.yaml"), "utf8"), "x.yaml");
    const render = (fact: RuntimeFact<DelegatedPrefix>) =>
      renderDnsmasqConfig({ view: makeConfigView(loaded.config!, runtimeFrom({ prefixes: new Map([["isp", fact]]) })), stateDir: "/s" }).split("\n");
    const fresh = render({ state: "absent", reason: "phase Soliciting" });
    const held = render(JSON.parse(readFileSync(join(TESTDATA, "stateless-info", "runtime.json"), "utf8")).isp);
    expect(held.filter((l) => !fresh.includes(l))).toEqual([
      "dhcp-option=tag:rd6_br_lan,option6:dns-server,[2001:db8:ffff::53],[2001:db8::53]",
      "dhcp-option=tag:rd6_br_lan,option6:domain-search,lan.example.net,isp.example.net",
    ]);
  });
});
