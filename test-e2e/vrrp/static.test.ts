// VirtualAddress mode: static through `routerd reconcile`: the address is routerd's like an
// IPv4StaticAddress, and announced when added: a gratuitous ARP (arping) for IPv4, the kernel's unsolicited
// NA (ndisc_notify, after duplicate address detection) for IPv6. A client's stale neighbour entries show it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { res } from "../lib/config.js";
import { routerd } from "../lib/netns.js";
import { until } from "../lib/serve.js";
import { LanLab, type LanHost } from "../lib/lan.js";

const FAKE_MAC = "02:00:5e:00:00:99";
let lab: LanLab;
let router: LanHost;
let client: LanHost;
let vip: string;
let quiet: string;
let vip6: string;

const reconcile = () => routerd(router.ns, ["reconcile", "--once", "--config", router.config], { stateDir: router.dirs.stateDir, root: router.dirs.root });

beforeAll(() => {
  lab = new LanLab();
  router = lab.add("va-r", 1);
  client = lab.add("va-c", 100);
  vip = `${lab.net}.53`;
  quiet = `${lab.net}.54`;
  vip6 = `${lab.net6}:53`;
  // A router does duplicate address detection (the test namespaces turn it off); the NA follows it.
  router.ns.exec("sysctl", ["-qw", `net.ipv6.conf.${router.ifname}.accept_dad=1`]);
  // The client believes the addresses live elsewhere (an old owner's MAC).
  for (const a of [vip, quiet, vip6]) client.ns.ip(`neigh replace ${a} lladdr ${FAKE_MAC} dev ${client.ifname} nud stale`);
});

afterAll(() => lab?.destroy());

describe("VirtualAddress mode: static", () => {
  it("adds the addresses and announces them; the client's neighbour entries follow", async () => {
    LanLab.writeConfig(router, [
      res("VirtualAddress", "dns", { family: "ipv4", interface: "lan", address: `${vip}/32` }),
      res("VirtualAddress", "quiet", { family: "ipv4", interface: "lan", address: quiet, gratuitousARP: false }),
      res("VirtualAddress", "dns6", { family: "ipv6", interface: "lan", address: `${vip6}/128` }),
    ]);
    const r = reconcile();
    expect(r.code, r.stderr + r.stdout).toBe(0);
    for (const a of [vip, quiet, vip6]) expect(LanLab.hasAddress(router, a)).toBe(true);
    const mac = LanLab.mac(router);
    expect(LanLab.neighbour(client, vip)).toBe(mac);
    await until("the unsolicited NA after DAD", () => LanLab.neighbour(client, vip6) === mac, 10_000);
    // Not announced: the client still has the old owner's MAC.
    expect(LanLab.neighbour(client, quiet)).toBe(FAKE_MAC);
    expect(router.ns.exec("sysctl", ["-n", `net.ipv6.conf.${router.ifname}.ndisc_notify`]).stdout.trim()).toBe("1");
    const ledger = readFileSync(join(router.dirs.stateDir, "artifacts.json"), "utf8");
    expect(ledger).toContain(`${router.ifname}/${vip}/32`);
    // Converged: a second run changes nothing (the announcement flag is not host state that could drift).
    const again = routerd(router.ns, ["plan", "--config", router.config, "--json"], { stateDir: router.dirs.stateDir, root: router.dirs.root });
    expect(again.code, again.stderr).toBe(0);
    expect((JSON.parse(again.stdout) as { summary: { create: number; update: number; delete: number } }).summary).toMatchObject({ create: 0, update: 0, delete: 0 });
  }, 60_000);

  it("removing the resources removes exactly their addresses", () => {
    LanLab.writeConfig(router, [res("VirtualAddress", "dns", { family: "ipv4", interface: "lan", address: `${vip}/32` })]);
    expect(reconcile().code).toBe(0);
    expect(LanLab.hasAddress(router, vip)).toBe(true);
    expect(LanLab.hasAddress(router, quiet)).toBe(false);
    expect(LanLab.hasAddress(router, vip6)).toBe(false);
    expect(LanLab.hasAddress(router, router.address)).toBe(true); // not routerd's
  });
});
