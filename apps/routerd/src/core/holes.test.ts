import { loadConfig, makeConfigView } from "@routerd/api";
import { renderFilterTable } from "@routerd/render";
import { describe, expect, it } from "vitest";
import { serviceHoles } from "./holes.js";

const config = (listen: string) => `
apiVersion: routerd.net/v1alpha1
kind: Router
metadata: { name: t }
spec:
  resources:
    - { apiVersion: net.routerd.net/v1alpha1, kind: Interface, metadata: { name: lan }, spec: { ifname: br-lan, managed: false } }
    - { apiVersion: net.routerd.net/v1alpha1, kind: IPv4StaticAddress, metadata: { name: lan-a }, spec: { interface: lan, address: 192.168.1.1/24 } }
    - { apiVersion: firewall.routerd.net/v1alpha1, kind: FirewallPolicy, metadata: { name: fw }, spec: { defaultInput: drop } }
    - { apiVersion: net.routerd.net/v1alpha1, kind: DNSResolver, metadata: { name: lan }, spec: { listen: [${listen}] } }
    - { apiVersion: net.routerd.net/v1alpha1, kind: DNSForwarder, metadata: { name: d }, spec: { resolver: lan, match: ["."], upstreams: [DNSUpstream/isp] } }
    - { apiVersion: net.routerd.net/v1alpha1, kind: DNSUpstream, metadata: { name: isp }, spec: { protocol: udp, address: 192.0.2.53 } }
`;

function holesFor(listen: string) {
  const loaded = loadConfig(config(listen), "t.yaml");
  expect(loaded.issues.filter((i) => i.severity === "error")).toEqual([]);
  const view = makeConfigView(loaded.config!);
  return { holes: serviceHoles(view), view };
}

describe("DNS resolver firewall holes", () => {
  it("open 53/udp and 53/tcp on the interface of each listen address", () => {
    const { holes, view } = holesFor("{ addresses: [192.168.1.1, 127.0.0.1] }");
    expect(holes).toEqual([
      { owner: "DNSResolver/lan", ifnames: ["br-lan"], protocol: "udp", port: 53 },
      { owner: "DNSResolver/lan", ifnames: ["br-lan"], protocol: "tcp", port: 53 },
    ]);
    const nft = renderFilterTable(view, holes).content;
    expect(nft).toContain('iifname "br-lan" udp dport 53 accept');
    expect(nft).toContain('iifname "br-lan" tcp dport 53 accept');
  });

  it("fall back to the destination address when no interface is known for it", () => {
    const { holes, view } = holesFor('{ addresses: [10.9.9.9, "fd00::53"], port: 5353 }');
    expect(holes.map((h) => [h.protocol, h.daddrs, h.port])).toEqual([
      ["udp", ["10.9.9.9", "fd00::53"], 5353],
      ["tcp", ["10.9.9.9", "fd00::53"], 5353],
    ]);
    const nft = renderFilterTable(view, holes).content;
    expect(nft).toContain("ip daddr 10.9.9.9 udp dport 5353 accept");
    expect(nft).toContain("ip6 daddr fd00::53 tcp dport 5353 accept");
  });

  it("need none for loopback listeners", () => {
    expect(holesFor("{ addresses: [127.0.0.1, '::1'] }").holes).toEqual([]);
  });
});
