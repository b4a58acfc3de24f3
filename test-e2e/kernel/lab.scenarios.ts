// The full-kernel tier itself: the guest kernel has what the WAN and tunnel kinds need, the namespace
// helpers of the native tier work in it, and routerd runs there.
import assert from "node:assert/strict";
import { Lab, sh } from "../lib/lab.js";
import { Netns, routerd, tempDir } from "../lib/netns.js";
import { res, routerYaml } from "../lib/config.js";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { defineScenarios } from "./lib/scenarios.js";

export default defineScenarios([
  {
    name: "the guest kernel creates every link type the WAN and tunnel kinds need",
    timeoutMs: 60_000,
    async run(ctx) {
      const lab = new Lab("feat", "kl");
      try {
        const ns = lab.netns("x");
        const ip = (...args: string[]) => sh(["ip", "-n", ns, ...args]);
        ip("link", "add", "d0", "type", "dummy");
        ip("link", "add", "link", "d0", "name", "d0.100", "type", "vlan", "id", "100");
        ip("link", "add", "blue", "type", "vrf", "table", "10");
        ip("link", "set", "d0.100", "master", "blue");
        ip("-6", "addr", "add", "2001:db8::2/64", "dev", "d0", "nodad");
        ip("link", "set", "d0", "up");
        ip("-6", "tunnel", "add", "ds0", "mode", "ip4ip6", "local", "2001:db8::2", "remote", "2001:db8::1", "dev", "d0");
        ip("addr", "add", "192.0.2.2/24", "dev", "d0");
        ip("link", "add", "ipip0", "type", "ipip", "local", "192.0.2.2", "remote", "192.0.2.1");
        ip("link", "add", "gre0x", "type", "gre", "local", "192.0.2.2", "remote", "192.0.2.1", "key", "7");
        ip("link", "add", "vx0", "type", "vxlan", "id", "42", "local", "192.0.2.2", "dstport", "4789", "dev", "d0");
        ip("link", "add", "wg0", "type", "wireguard");
        sh(["modprobe", "fou"]); // generic-netlink families do not autoload
        sh(["ip", "netns", "exec", ns, "ip", "fou", "add", "port", "5555", "ipproto", "47"]);
        const kinds = JSON.parse(sh(["ip", "-n", ns, "-j", "-d", "link", "show"])) as { ifname: string; linkinfo?: { info_kind?: string } }[];
        const byName = Object.fromEntries(kinds.map((l) => [l.ifname, l.linkinfo?.info_kind]));
        ctx.log(JSON.stringify(byName));
        assert.deepEqual(
          { d0: byName.d0, vlan: byName["d0.100"], blue: byName.blue, ds0: byName.ds0, ipip0: byName.ipip0, gre0x: byName.gre0x, vx0: byName.vx0, wg0: byName.wg0 },
          { d0: "dummy", vlan: "vlan", blue: "vrf", ds0: "ip6tnl", ipip0: "ipip", gre0x: "gre", vx0: "vxlan", wg0: "wireguard" },
        );
        sh(["modprobe", "pppoe"]);
        assert.match(sh(["cat", "/proc/net/pppoe"]), /Id/);
        sh(["ip", "netns", "exec", ns, "nft", "add table inet t; add chain inet t post { type nat hook postrouting priority 100; }; add rule inet t post oifname d0 masquerade"]);
        assert.match(sh(["ip", "netns", "exec", ns, "nft", "list", "ruleset"]), /masquerade/);
      } finally {
        await lab.cleanup();
      }
    },
  },
  {
    name: "a LAN namespace reaches the ISP namespace only through the router's nftables masquerade",
    timeoutMs: 60_000,
    async run() {
      const lab = new Lab("nat", "kl");
      try {
        const [lan, rtr, isp] = [lab.netns("lan"), lab.netns("rtr"), lab.netns("isp")];
        lab.veth(lan, "eth0", rtr, "lan0");
        lab.veth(rtr, "wan0", isp, "eth0");
        sh(["ip", "-n", lan, "addr", "add", "192.168.1.2/24", "dev", "eth0"]);
        sh(["ip", "-n", lan, "route", "add", "default", "via", "192.168.1.1"]);
        sh(["ip", "-n", rtr, "addr", "add", "192.168.1.1/24", "dev", "lan0"]);
        sh(["ip", "-n", rtr, "addr", "add", "203.0.113.2/24", "dev", "wan0"]);
        sh(["ip", "-n", isp, "addr", "add", "203.0.113.1/24", "dev", "eth0"]);
        sh(["ip", "netns", "exec", rtr, "sysctl", "-qw", "net.ipv4.ip_forward=1"]);
        const ping = () => sh(["ip", "netns", "exec", lan, "ping", "-c1", "-W1", "203.0.113.1"], { allowFail: true });
        assert.equal(ping(), "", "without NAT the ISP has no route back to the LAN");
        sh(["ip", "netns", "exec", rtr, "nft", "add table ip t; add chain ip t post { type nat hook postrouting priority 100; }; add rule ip t post oifname wan0 masquerade"]);
        assert.match(ping(), /1 received/);
      } finally {
        await lab.cleanup();
      }
    },
  },
  {
    name: "routerd reconciles an address onto a dummy link (a link type the host kernel lacks)",
    timeoutMs: 90_000,
    run() {
      const ns = Netns.create("kl-rd");
      const tmp = tempDir();
      try {
        ns.ip("link add uplink type dummy");
        const config = join(tmp.dir, "router.yaml");
        writeFileSync(config, routerYaml([res("Interface", "up", { ifname: "uplink" }), res("IPv4StaticAddress", "up-addr", { interface: "up", address: "198.51.100.7/24" })]));
        const r = routerd(ns, ["reconcile", "--once", "--config", config], { stateDir: join(tmp.dir, "state"), root: join(tmp.dir, "root") });
        assert.equal(r.code, 0, r.stderr + r.stdout);
        assert.match(ns.ip("-4 addr show dev uplink").stdout, /198\.51\.100\.7\/24/);
      } finally {
        ns.destroy();
        tmp.cleanup();
      }
    },
  },
]);
