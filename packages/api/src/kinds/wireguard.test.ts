import { describe, expect, it } from "vitest";
import { makeConfigView } from "../config-view.js";
import { loadConfig } from "../load.js";
import { kindDefinition } from "./index.js";

const HEAD = "apiVersion: routerd.net/v1alpha1\nkind: Router\nmetadata: { name: test }\nspec:\n  resources:\n";
const res = (kind: string, name: string, spec: string) => `    - apiVersion: net.routerd.net/v1alpha1\n      kind: ${kind}\n      metadata: { name: ${name} }\n      spec: ${spec}\n`;
const PUB_B = "R+kpv0E7+9ZfEtF0WNgYBwK3xWemo6L7sQ+YHZWIuGY=";
const PUB_C = "L8lFstTe/ajEvrkMwvPxZDVkuMxYzy7xGQBU8eXkqTY=";
const WG = res("WireGuardInterface", "wg-site", "{ ifname: wg0, listenPort: 51820, privateKeyFile: /etc/routerd/wg0.key }");

const load = (...r: string[]) => loadConfig(HEAD + r.join(""), "f.yaml");
const errors = (...r: string[]) =>
  load(...r)
    .issues.filter((i) => i.severity === "error")
    .map((e) => [e.resource, e.field, e.message, e.hint]);

describe("WireGuardInterface / WireGuardPeer validation", () => {
  it("accepts the original's fields and is a valid interface: target", () => {
    const r = load(WG, res("WireGuardPeer", "b", `{ interface: wg-site, publicKey: "${PUB_B}", allowedIPs: [10.99.1.0/24, "fd99:0:0::/64"], endpoint: "[2001:db8::7]:51820", persistentKeepalive: 25 }`), res("IPv4StaticAddress", "wg-a", "{ interface: wg-site, address: 10.99.0.1/24 }"));
    expect(r.issues).toEqual([]);
    const view = makeConfigView(r.config!);
    expect(view.ifname("wg-site")).toBe("wg0");
    // IPv6 prefixes are kept as wg prints them, so plans compare them with what the host shows.
    expect((view.find("WireGuardPeer", "b")!.spec as { allowedIPs: string[] }).allowedIPs).toEqual(["10.99.1.0/24", "fd99::/64"]);
  });

  it("refuses keys inside the config and says where to put them", () => {
    const e = errors(res("WireGuardInterface", "wg", `{ privateKey: "${PUB_B}" }`), res("WireGuardPeer", "b", `{ interface: wg, publicKey: "${PUB_B}", allowedIPs: [10.0.0.0/8], presharedKey: "${PUB_C}" }`));
    expect(e).toEqual([
      ["WireGuardInterface/wg", "spec.privateKey", expect.stringMatching(/not accepted inside the config/), expect.stringMatching(/privateKeyFile/)],
      ["WireGuardPeer/b", "spec.presharedKey", expect.stringMatching(/not accepted inside the config/), expect.stringMatching(/presharedKeyFile/)],
    ]);
  });

  it("checks peers: their interface, duplicate keys, overlapping allowedIPs, host bits", () => {
    const e = errors(
      WG,
      res("Interface", "lan", "{ ifname: lan0 }"),
      res("WireGuardPeer", "b", `{ interface: wg-site, publicKey: "${PUB_B}", allowedIPs: [10.99.1.0/24] }`),
      res("WireGuardPeer", "c", `{ interface: wg-site, publicKey: "${PUB_B}", allowedIPs: [10.99.1.0/24, 10.99.2.1/24] }`),
      res("WireGuardPeer", "d", `{ interface: lan, publicKey: "${PUB_C}", allowedIPs: [10.99.3.0/24] }`),
    );
    expect(e.map((x) => x.slice(0, 3))).toEqual([
      ["WireGuardPeer/c", "spec.allowedIPs[1]", "10.99.2.1/24 has host bits set; the network is 10.99.2.0/24"],
      ["WireGuardPeer/d", "spec.interface", "lan is not a WireGuardInterface"],
    ]);
    const e2 = errors(WG, res("WireGuardPeer", "b", `{ interface: wg-site, publicKey: "${PUB_B}", allowedIPs: [10.99.1.0/24] }`), res("WireGuardPeer", "c", `{ interface: wg-site, publicKey: "${PUB_B}", allowedIPs: [10.99.1.0/24] }`));
    expect(e2.map((x) => x.slice(0, 2))).toEqual([
      ["WireGuardPeer/c", "spec.publicKey"],
      ["WireGuardPeer/c", "spec.allowedIPs"],
    ]);
  });

  it("emits the device, its link, the peer (no key material) and routes only when asked", () => {
    const r = load(WG, res("WireGuardPeer", "b", `{ interface: wg-site, publicKey: "${PUB_B}", allowedIPs: ["fd99::/64", 10.99.1.0/24], presharedKeyFile: /etc/routerd/b.psk, routeAllowedIPs: true, routeMetric: 50 }`));
    const view = makeConfigView(r.config!);
    const intents = r.config!.resources.flatMap((x) => kindDefinition(x.kind)!.intents(x, view));
    expect(intents.map((i) => `${i.kind} ${i.name}`)).toEqual([
      "wireguard.device wg0",
      "linux.link wg0",
      `wireguard.peer wg0/${PUB_B}`,
      "linux.ipv4.route table=254,dst=10.99.1.0/24,metric=50",
      "linux.ipv6.route table=254,dst=fd99::/64,metric=50",
    ]);
    expect(intents[0]!.attributes).toEqual({ ifname: "wg0", backend: "auto", privateKeyFile: "/etc/routerd/wg0.key", listenPort: 51820 });
    expect(intents[2]!.attributes).toMatchObject({ allowedIPs: ["10.99.1.0/24", "fd99::/64"], presharedKeyFile: "/etc/routerd/b.psk", persistentKeepalive: 0 });
    expect(intents[3]!.attributes).toMatchObject({ device: "wg0", table: 254 });
  });

  it("refuses SAM node set fields it does not implement", () => {
    const e = errors(res("WireGuardInterface", "wg", "{ privateKeyFile: /k, selfNodeRef: me, peersFrom: [{ resource: SAMNodeSet/x }] }"));
    expect(e.map((x) => x[1])).toEqual(["spec.selfNodeRef", "spec.peersFrom"]);
  });
});
