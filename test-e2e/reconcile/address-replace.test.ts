// Replacing an IPv4 address by another in the same subnet on one link. routerd adds the new address first
// (the kernel makes it a secondary) and deletes the old primary later; with promote_secondaries off (the
// kernel's default) that delete takes every secondary of the subnet with it — the new address, an operator's
// own address, and with the last address every route on the link. Verify must not call such a run Ready.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { res, type ResourceDoc } from "../lib/config.js";
import { RouterScenario } from "../lib/scenario.js";

let s: RouterScenario;
beforeEach(() => {
  s = new RouterScenario();
});
afterEach(() => s.destroy());

const config = (address: string): ResourceDoc[] => [
  res("Interface", "lan", { ifname: "lan0" }),
  res("IPv4StaticAddress", "lan-address", { interface: "lan", address }),
  res("IPv4Route", "lab-net", { destination: "10.20.0.0/16", gateway: "192.0.2.254", device: "lan" }),
];

const addresses = () => [...s.ns.ip("-4 addr show dev lan0").stdout.matchAll(/inet (\S+)/g)].map((m) => m[1]).sort();
const promote = () => s.ns.exec("sysctl", ["-n", "net.ipv4.conf.lan0.promote_secondaries"]).stdout.trim();
const ledgerIds = () => (JSON.parse(readFileSync(join(s.stateDir, "artifacts.json"), "utf8")) as { entries: { kind: string; name: string; state: string }[] }).entries.map((e) => `${e.kind} ${e.name} ${e.state}`);
const phases = () =>
  Object.fromEntries(
    (JSON.parse(readFileSync(join(s.stateDir, "status.json"), "utf8")) as { statuses: { owner: string; phase: string; message?: string }[] }).statuses.map((x) => [
      x.owner.split("/").slice(-2).join("/"),
      x.phase + (x.message ? `: ${x.message}` : ""),
    ]),
  );

describe("an IPv4 address replaced by another in the same subnet", () => {
  it("keeps the new address, the link's routes and an operator's own address; promote_secondaries is left as it was", () => {
    expect(s.reconcile(config("192.0.2.1/24")).code).toBe(0);
    expect(addresses()).toEqual(["192.0.2.1/24"]);
    s.ns.ip("addr add 192.0.2.9/24 dev lan0"); // the operator's, not routerd's: a secondary of 192.0.2.1
    expect(promote()).toBe("0");

    const r = s.reconcile(config("192.0.2.2/24"));
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(addresses()).toEqual(["192.0.2.2/24", "192.0.2.9/24"]);
    expect(s.ns.ip("route show").stdout).toContain("10.20.0.0/16 via 192.0.2.254 dev lan0");
    expect(promote()).toBe("0");
    expect(ledgerIds()).toContain("linux.ipv4.address lan0/192.0.2.2/24 present");
    expect(ledgerIds().join("\n")).not.toContain("192.0.2.1/24");
    expect(phases()).toMatchObject({ "IPv4StaticAddress/lan-address": "Ready", "IPv4Route/lab-net": "Ready" });

    // And back, with routerd's address the only one (the operator's gone): nothing changes afterwards.
    s.ns.ip("addr del 192.0.2.9/24 dev lan0");
    expect(s.reconcile(config("192.0.2.1/24")).code).toBe(0);
    expect(addresses()).toEqual(["192.0.2.1/24"]);
    expect(s.ns.ip("route show").stdout).toContain("10.20.0.0/16 via 192.0.2.254 dev lan0");
    const again = s.reconcile(config("192.0.2.1/24"), ["--json"]);
    expect((JSON.parse(again.stdout) as { summary: Record<string, number> }).summary).toMatchObject({ create: 0, update: 0, delete: 0 });
  });
});
