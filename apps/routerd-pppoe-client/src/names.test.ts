// The daemon and routerd core agree on the daemon's name and on the config file routerd serve writes.
import { loadConfig, makeConfigView, PPPOE_CLIENT_DAEMON, pppoeClientConfig, type PPPoESessionSpec, type Resource } from "@routerd/api";
import { describe, expect, it } from "vitest";
import { parseSessionConfig } from "./config.js";
import { DAEMON_NAME } from "./names.js";

describe("contract with routerd core", () => {
  it("uses the daemon name routerd supervises", () => expect(DAEMON_NAME).toBe(PPPOE_CLIENT_DAEMON));

  it("accepts every config routerd writes from a PPPoESession", () => {
    const yaml = `apiVersion: routerd.net/v1alpha1
kind: Router
metadata: { name: t }
spec:
  resources:
    - { apiVersion: net.routerd.net/v1alpha1, kind: Interface, metadata: { name: wan }, spec: { ifname: eth0 } }
    - apiVersion: net.routerd.net/v1alpha1
      kind: PPPoESession
      metadata: { name: isp }
      spec: { interface: wan, ifname: ppp1, username: "u@isp", password: "p\\"w", authMethod: pap, mtu: 1454, mru: 1454, ipv6: true, usePeerDNS: true, lcpInterval: 5, persist: false, acName: BAS, serviceName: internet }
`;
    const r = loadConfig(yaml, "t.yaml");
    expect(r.issues.filter((i) => i.severity === "error")).toEqual([]);
    const res = r.config!.resources.find((x) => x.kind === "PPPoESession")! as Resource<PPPoESessionSpec>;
    const written = JSON.parse(JSON.stringify(pppoeClientConfig(res, makeConfigView(r.config!))));
    expect(parseSessionConfig(written)).toMatchObject({ interface: "eth0", ifname: "ppp1", password: 'p"w', lcpEchoInterval: 5, persist: false });
  });
});
