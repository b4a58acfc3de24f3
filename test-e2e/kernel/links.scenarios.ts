// Links routerd creates, between real routers in one VM: IP tunnels (ipip, gre, ipip in FOU and in GUE) and
// VXLAN carry traffic (VXLAN with TCP's MSS clamped on the bridged path), VRFs keep the same prefix apart,
// and removing the resources deletes exactly the links routerd created; a foreign link with a wanted name is
// never touched. WireGuard on the kernel module (links-wireguard.ts) runs in the same VM boot.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { readLedger } from "@routerd/resource";
import { Lab, sh } from "../lib/lab.js";
import { until } from "../lib/serve.js";
import { moduleInPlan, Router, res } from "./lib/router.js";
import { defineScenarios } from "./lib/scenarios.js";
import { wireGuardScenario } from "./links-wireguard.js";

const tunnel = (name: string, spec: Record<string, unknown>) => ({ ...res("TunnelInterface", name, { trustedUnderlay: true, ...spec }), apiVersion: "hybrid.routerd.net/v1alpha1" });

export default defineScenarios([
  {
    name: "kernel modules: routerd loads the module a VRF needs and records it, records none it did not load, unloads none",
    timeoutMs: 300_000,
    async run(ctx) {
      // Modules are global to the VM: this scenario runs first, before any other loads vrf (a VRF scenario's
      // namespaces keep it busy long after they are deleted).
      const loaded = () => readFileSync("/proc/modules", "utf8").split("\n").some((l) => l.startsWith("vrf "));
      const lab = new Lab("mod", "kl");
      try {
        // An earlier scenario's namespaces (and their VRFs) go away asynchronously: vrf is busy until then.
        for (let i = 0; i < 10 && loaded(); i++) {
          sh(["modprobe", "-r", "vrf"], { allowFail: true });
          if (loaded()) await new Promise((r) => setTimeout(r, 1000));
        }
        assert.equal(loaded(), false, "vrf is not loaded before the scenario");
        const r = new Router(lab, "r");
        const vrf = [res("Interface", "lo", { managed: false }), res("VRF", "blue", { routeTable: 100 })];
        const planned = r.plan(vrf);
        assert.equal(moduleInPlan(planned.text), "VRF/blue vrf create", "plan shows the module to load");
        r.apply(vrf);
        assert.equal(loaded(), true, "routerd loaded vrf");
        assert.equal(readLedger(r.stateDir).get("linux.kernelModule", "vrf")?.ownership, "created", "the ledger records routerd loaded it");
        ctx.log(`ledger: ${JSON.stringify(readLedger(r.stateDir).get("linux.kernelModule", "vrf"))}`);
        const again = r.plan(vrf);
        assert.deepEqual([again.summary.create, again.summary.update, again.summary.delete], [0, 0, 0], `nothing left to do: ${again.text}`);

        r.apply([res("Interface", "lo", { managed: false })]);
        assert.equal(r.links().has("blue"), false, "the VRF is gone");
        assert.equal(loaded(), true, "routerd never unloads a module (rmmod would delete every VRF on the host)");
        assert.equal(readLedger(r.stateDir).get("linux.kernelModule", "vrf"), undefined, "the ledger forgot it");

        // Loaded before routerd (by the step above, as by anyone): used, never recorded as routerd's.
        assert.equal(moduleInPlan(r.plan(vrf).text), "VRF/blue vrf unchanged", "plan: present, nothing to do");
        r.apply(vrf);
        assert.equal(readLedger(r.stateDir).get("linux.kernelModule", "vrf"), undefined, "a module routerd did not load is not in the ledger");
        r.apply([res("Interface", "lo", { managed: false })]);
        assert.equal(loaded(), true, "and it stays loaded");
      } finally {
        await lab.cleanup();
        sh(["modprobe", "-r", "vrf"], { allowFail: true });
      }
    },
  },
  {
    name: "TunnelInterface ipip, gre, ipip-in-FOU and ipip-in-GUE between two routers carry traffic; removal deletes exactly those links",
    timeoutMs: 900_000,
    async run(ctx) {
      const lab = new Lab("tun", "kl");
      try {
        const [a, b] = [new Router(lab, "a"), new Router(lab, "b")];
        lab.veth(a.ns, "under", b.ns, "under");
        // Three underlay address pairs: the kernel keeps one ipip tunnel per (local, remote).
        for (const [r, n] of [[a, 1], [b, 2]] as const) {
          for (const base of [0, 10, 20]) r.ip("addr", "add", `198.51.100.${base + n}/24`, "dev", "under");
        }
        const config = (me: number, peer: number) => [
          res("Interface", "under", { ifname: "under" }),
          tunnel("t-ipip", { mode: "ipip", local: `198.51.100.${me}`, remote: `198.51.100.${peer}`, address: `10.255.1.${me}/30` }),
          tunnel("t-gre", { mode: "gre", local: `198.51.100.${me}`, remote: `198.51.100.${peer}`, key: 7, ttl: 64, address: `10.255.2.${me}/30` }),
          tunnel("t-fou", { mode: "fou", local: `198.51.100.${10 + me}`, remote: `198.51.100.${10 + peer}`, encapDport: 5555, address: `10.255.3.${me}/30` }),
          tunnel("t-gue", { mode: "gue", local: `198.51.100.${20 + me}`, remote: `198.51.100.${20 + peer}`, encapDport: 5556, address: `10.255.4.${me}/30` }),
        ];
        a.apply(config(1, 2));
        b.apply(config(2, 1));
        ctx.log(a.ip("-d", "link", "show", "t-fou"));
        ctx.log(a.ip("-d", "link", "show", "t-gue"));
        assert.deepEqual([a.links().get("t-ipip"), a.links().get("t-gre"), a.links().get("t-fou"), a.links().get("t-gue")], ["ipip", "gre", "ipip", "ipip"]);
        assert.match(a.ip("-d", "link", "show", "t-gue"), /encap gue encap-sport auto encap-dport 5556/);
        const fou = sh(["ip", "netns", "exec", a.ns, "ip", "fou", "show"]);
        assert.match(fou, /port 5555 ipproto 4/);
        assert.match(fou, /port 5556 gue/);
        for (const net of [1, 2, 3, 4]) assert.ok(a.ping(`10.255.${net}.2`), `traffic through tunnel ${net}`);
        const again = a.plan(config(1, 2));
        assert.deepEqual([again.summary.create, again.summary.update, again.summary.delete], [0, 0, 0], `nothing left to do: ${again.text}`);

        a.ip("link", "add", "t-keep", "type", "dummy"); // someone else's link, never routerd's
        a.apply([res("Interface", "under", { ifname: "under" })]);
        const left = a.links();
        assert.equal(left.has("t-ipip") || left.has("t-gre") || left.has("t-fou") || left.has("t-gue"), false, "routerd's tunnels are gone");
        assert.equal(left.get("t-keep"), "dummy");
        assert.equal(left.has("under"), true);
        assert.doesNotMatch(sh(["ip", "netns", "exec", a.ns, "ip", "fou", "show"], { allowFail: true }), /555[56]/);
      } finally {
        await lab.cleanup();
      }
    },
  },
  {
    name: "VRFs keep the same prefix apart; a foreign VRF with a wanted name is left alone; removal deletes only routerd's",
    timeoutMs: 600_000,
    async run(ctx) {
      const lab = new Lab("vrf", "kl");
      try {
        const r = new Router(lab, "r");
        const [x, y] = [lab.netns("x"), lab.netns("y")];
        lab.veth(r.ns, "eth-x", x, "eth0");
        lab.veth(r.ns, "eth-y", y, "eth0");
        sh(["ip", "-n", x, "addr", "add", "10.0.0.2/24", "dev", "eth0"]);
        sh(["ip", "-n", y, "addr", "add", "10.0.0.3/24", "dev", "eth0"]);
        r.ip("link", "add", "green", "type", "vrf", "table", "300"); // foreign, same name as a wanted VRF
        const resources = [
          res("Interface", "x", { ifname: "eth-x" }),
          res("Interface", "y", { ifname: "eth-y" }),
          res("VRF", "red", { routeTable: 100, members: ["x"] }),
          res("VRF", "blue", { routeTable: 200, members: ["y"] }),
          res("VRF", "green", { routeTable: 301 }),
          res("IPv4StaticAddress", "x-addr", { interface: "x", address: "10.0.0.1/24" }),
          res("IPv4StaticAddress", "y-addr", { interface: "y", address: "10.0.0.254/24" }),
        ];
        const out = r.apply(resources);
        ctx.log(out.stdout);
        assert.match(r.ip("route", "show", "vrf", "red"), /10\.0\.0\.0\/24 dev eth-x/);
        assert.match(r.ip("route", "show", "vrf", "blue"), /10\.0\.0\.0\/24 dev eth-y/);
        assert.ok(r.ping("10.0.0.2", ["-I", "red"]), "red reaches x");
        assert.ok(!r.ping("10.0.0.3", ["-I", "red"]), "red does not reach y's host");
        assert.ok(r.ping("10.0.0.3", ["-I", "blue"]), "blue reaches y");
        assert.match(r.ip("-d", "link", "show", "green"), /vrf table 300/, "the foreign VRF keeps its own table");
        const plan = r.plan(resources);
        assert.ok(plan.adoptionCandidates.some((c) => c.kind === "linux.link" && c.name === "green"), `green is offered for adoption: ${plan.text}`);
        assert.deepEqual([plan.summary.create, plan.summary.update, plan.summary.delete], [0, 0, 0]);

        r.apply([res("Interface", "x", { ifname: "eth-x" }), res("Interface", "y", { ifname: "eth-y" })]);
        const links = r.links();
        assert.equal(links.has("red") || links.has("blue"), false);
        assert.equal(links.get("green"), "vrf", "the foreign VRF is still there");
        assert.equal(links.has("eth-x") && links.has("eth-y"), true);
      } finally {
        await lab.cleanup();
      }
    },
  },
  {
    name: "VXLAN between two routers carries a bridged LAN; tcpMSSClamp rewrites the MSS of SYN and SYN-ACK on the bridged path; removal leaves the bridges",
    timeoutMs: 600_000,
    async run(ctx) {
      const lab = new Lab("vx", "kl");
      try {
        const [a, b] = [new Router(lab, "a"), new Router(lab, "b")];
        lab.veth(a.ns, "under", b.ns, "under");
        const hosts = [lab.netns("ha"), lab.netns("hb")];
        for (const [i, r] of [a, b].entries()) {
          r.ip("addr", "add", `198.51.100.${i + 1}/24`, "dev", "under");
          r.ip("link", "add", "br0", "type", "bridge");
          lab.veth(r.ns, "lan", hosts[i]!, "eth0");
          r.ip("link", "set", "lan", "master", "br0");
          sh(["ip", "-n", hosts[i]!, "addr", "add", `10.9.0.${i + 1}/24`, "dev", "eth0"]);
        }
        const config = (me: number, peer: number, clamp = false) => [
          res("Interface", "under", { ifname: "under" }),
          res("Interface", "br", { ifname: "br0" }),
          res("VXLANTunnel", "vx", { ifname: "vx42", vni: 42, localAddress: `198.51.100.${me}`, underlayInterface: "under", peers: [`198.51.100.${peer}`], bridge: "br", mtu: 1450, tcpMSSClamp: clamp }),
        ];
        a.apply(config(1, 2));
        b.apply(config(2, 1));
        assert.match(a.ip("-d", "link", "show", "vx42"), /vxlan id 42/);
        assert.match(sh(["ip", "netns", "exec", a.ns, "bridge", "fdb", "show", "dev", "vx42"]), /00:00:00:00:00:00 dst 198\.51\.100\.2/);
        assert.match(sh(["ip", "netns", "exec", hosts[0]!, "ping", "-c", "2", "-W", "2", "10.9.0.2"]), /2 received/);

        // The hosts' 1500-byte links advertise MSS 1460; each counts the SYN (hb) and SYN-ACK (ha) it receives.
        lab.spawn(hosts[1]!, [process.execPath, "-e", "require('node:net').createServer((s) => s.end()).listen(7000, '10.9.0.2')"]);
        await until("hb listening on port 7000", () => /10\.9\.0\.2:7000/.test(sh(["ip", "netns", "exec", hosts[1]!, "ss", "-ltn"])), 60_000, 250);
        for (const h of hosts) countSynsByMss(lab, h);
        assert.ok(connects(hosts[0]!, "10.9.0.2", 7000), "a TCP connection across the VXLAN");
        assert.deepEqual([synsByMss(hosts[1]!), synsByMss(hosts[0]!)], [{ 1410: 0, 1460: 1 }, { 1410: 0, 1460: 1 }], "unclamped: the hosts' own MSS");

        // Router a alone clamps: its vx42 is the way out for ha's SYN and the way in for hb's SYN-ACK.
        a.apply(config(1, 2, true));
        const table = sh(["ip", "netns", "exec", a.ns, "nft", "list", "table", "bridge", "routerd_mss"]);
        ctx.log(table);
        assert.match(table, /oifname "vx42" ether type ip tcp flags syn \/ syn,rst tcp option maxseg size > 1410 tcp option maxseg size set 1410/);
        assert.ok(connects(hosts[0]!, "10.9.0.2", 7000), "a TCP connection with the clamp");
        assert.deepEqual([synsByMss(hosts[1]!), synsByMss(hosts[0]!)], [{ 1410: 1, 1460: 1 }, { 1410: 1, 1460: 1 }], "clamped to the tunnel's mtu 1450 minus 40, both ways");

        a.apply([res("Interface", "under", { ifname: "under" }), res("Interface", "br", { ifname: "br0" })]);
        assert.equal(a.links().has("vx42"), false);
        assert.equal(a.links().get("br0"), "bridge");
        assert.doesNotMatch(sh(["ip", "netns", "exec", a.ns, "nft", "list", "tables"]), /routerd_mss/);
      } finally {
        await lab.cleanup();
      }
    },
  },
  wireGuardScenario,
]);

/** A host's own table that counts incoming SYNs (with or without ACK) by the MSS they carry. */
function countSynsByMss(lab: Lab, ns: string): void {
  const file = lab.path(`${ns}-mss-probe.nft`);
  const rules = [1410, 1460].map((mss) => `\t\ttcp flags syn / syn,rst tcp option maxseg size ${mss} counter`);
  writeFileSync(file, ["table inet mss_probe {", "\tchain in {", "\t\ttype filter hook input priority 0; policy accept;", ...rules, "\t}", "}", ""].join("\n"));
  sh(["ip", "netns", "exec", ns, "nft", "-f", file]);
}

function synsByMss(ns: string): Record<number, number> {
  const out: Record<number, number> = {};
  for (const m of sh(["ip", "netns", "exec", ns, "nft", "list", "table", "inet", "mss_probe"]).matchAll(/maxseg size (\d+) counter packets (\d+)/g)) out[Number(m[1])] = Number(m[2]);
  return out;
}

/** One TCP connection from the namespace (Node's own connect: the lab has no netcat). */
function connects(ns: string, host: string, port: number): boolean {
  const js = `require('node:net').connect(${port}, '${host}').on('connect', () => { console.log('connected'); process.exit(0); }).on('error', () => process.exit(1)).setTimeout(10000, () => process.exit(1))`;
  return sh(["ip", "netns", "exec", ns, process.execPath, "-e", js], { allowFail: true }).includes("connected");
}
