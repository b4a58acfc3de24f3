import { describe, expect, it } from "vitest";
import { INTERFACE_KINDS } from "./interface-kinds.js";
import { API_GROUPS } from "./kind.js";
import { formatPath, loadConfig, type ConfigIssue } from "./load.js";
import { KINDS } from "./kinds/index.js";

const HEAD = "apiVersion: routerd.net/v1alpha1\nkind: Router\nmetadata: { name: test }\nspec:\n  resources:\n";
const group = (kind: string) => KINDS.find((k) => k.kind === kind)?.apiVersion ?? API_GROUPS.net;
/** One resource as a YAML list item; `spec` is a flow mapping. */
const res = (kind: string, name: string, spec: string, apiVersion = group(kind)) =>
  `    - apiVersion: ${apiVersion}\n      kind: ${kind}\n      metadata: { name: ${name} }\n      spec: ${spec}\n`;
const doc = (...resources: string[]) => HEAD + resources.join("");
const IFACES = res("Interface", "wan", "{ ifname: wan0 }") + res("Interface", "lan", "{ ifname: lan0 }");

/** 1-based line and column of the n-th occurrence of `needle`: positions come from the text, not by hand. */
function at(text: string, needle: string, n = 0): { line: number; column: number } {
  let i = -1;
  for (let k = 0; k <= n; k++) {
    i = text.indexOf(needle, i + 1);
    if (i < 0) throw new Error(`${needle} not found`);
  }
  const before = text.slice(0, i).split("\n");
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

const errors = (issues: ConfigIssue[]) => issues.filter((i) => i.severity === "error");

describe("loadConfig: every error, located", () => {
  const text = doc(
    res("Interface", "wan", "{ ifnam: wan0 }"),
    res("Interface", "lan", "{ mtu: big }"),
    res("NAT44Rule", "nat", "{ egressInterface: wna }"),
    res("Interfce", "x", "{}"),
    res("Interface", "y", "{}", API_GROUPS.firewall),
    res("Interface", "lan", "{}"),
    res("IPv4Route", "r", "{ destination: 10.0.0.1/8, gateway: 10.0.0.256 }"),
  );
  const result = loadConfig(text, "/etc/routerd/router.yaml");

  it("yields no config and reports all errors, sorted by position", () => {
    expect(result.config).toBeUndefined();
    const errs = errors(result.issues);
    expect(errs.length).toBe(8);
    const order = errs.map((e) => e.line * 1000 + e.column);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    for (const e of errs) {
      expect(e.file).toBe("/etc/routerd/router.yaml");
      expect(e.resource).toMatch(/^[A-Za-z0-9]+\/[a-z0-9-]+$/);
      expect(e.field).toMatch(/\S/);
    }
  });

  it.each<[string, Partial<ConfigIssue>, string, number?]>([
    ["unknown field → nearest known name", { resource: "Interface/wan", field: "spec.ifnam", message: 'unknown field "ifnam"', hint: 'did you mean "ifname"?' }, "ifnam"],
    ["wrong type", { resource: "Interface/lan", field: "spec.mtu", message: "must be an integer, not a string" }, "big"],
    ["missing reference → nearest name", { resource: "NAT44Rule/nat", field: "spec.egressInterface", message: `no ${INTERFACE_KINDS.join(" or ")} named "wna"`, hint: 'did you mean "wan"?' }, "wna"],
    ["unknown kind → hint", { resource: "Interfce/x", field: "kind", message: 'unknown kind "Interfce"', hint: 'did you mean "Interface"?' }, "Interfce"],
    [
      "wrong apiVersion group",
      { resource: "Interface/y", field: "apiVersion", message: `Interface is in ${API_GROUPS.net}, not "${API_GROUPS.firewall}"`, hint: `apiVersion: ${API_GROUPS.net}` },
      API_GROUPS.firewall,
    ],
    ["duplicate resource", { resource: "Interface/lan", field: "metadata.name", message: "duplicate resource: Interface/lan is already defined at spec.resources[1]" }, "lan }", 1],
    ["host bits in a prefix", { resource: "IPv4Route/r", field: "spec.destination", message: "10.0.0.1/8 has host bits set; the network is 10.0.0.0/8" }, "10.0.0.1/8"],
    ["bad address", { resource: "IPv4Route/r", field: "spec.gateway", message: '"10.0.0.256" is not an IPv4 address' }, "10.0.0.256"],
  ])("%s", (_label, expected, needle, n = 0) => {
    const issue = result.issues.find((i) => i.resource === expected.resource && i.field === expected.field);
    expect(issue).toEqual({ severity: "error", file: "/etc/routerd/router.yaml", ...at(text, needle, n), ...expected });
  });
});

describe("loadConfig: YAML and document errors", () => {
  it.each([
    ["an unterminated flow mapping", doc("    - apiVersion: net.routerd.net/v1alpha1\n      kind: Interface\n      metadata: { name: wan\n      spec: {}\n"), /YAML: /, 9],
    ["a duplicate key", doc("    - apiVersion: net.routerd.net/v1alpha1\n      kind: Interface\n      kind: Interface\n      metadata: { name: wan }\n      spec: {}\n"), /YAML: Map keys must be unique/, 8],
    ["a tab indentation", HEAD + "\t- x\n", /YAML: /, 6],
  ])("%s is reported with its position", (_label, text, message, line) => {
    const r = loadConfig(text, "f.yaml");
    expect(r.config).toBeUndefined();
    expect(r.issues[0]).toMatchObject({ severity: "error", file: "f.yaml", line, message: expect.stringMatching(message) });
    expect(r.issues[0]!.column).toBeGreaterThan(0);
  });

  it.each([
    ["an empty file", "", "the file is empty"],
    ["a file of comments", "# nothing here\n", "the file is empty"],
    ["two documents", `${HEAD}    []\n---\n${HEAD}`, "expected one YAML document, found 2"],
  ])("%s is an error at 1:1", (_label, text, message) => {
    expect(loadConfig(text, "f.yaml").issues).toEqual([{ severity: "error", file: "f.yaml", line: 1, column: 1, message }]);
  });

  it("checks the Router envelope and sorts its errors by position", () => {
    const text = "apiVersion: routerd.net/v1\nkind: Routr\nmetdata: { name: x }\nspec: { resources: [] }\n";
    const r = loadConfig(text, "f.yaml");
    expect(r.issues.map((i) => [i.line, i.field, i.message])).toEqual([
      [1, "metadata", "is required"],
      [1, "apiVersion", '"routerd.net/v1" is not one of routerd.net/v1alpha1'],
      [2, "kind", '"Routr" is not one of Router'],
      [3, "metdata", 'unknown field "metdata"'],
    ]);
    expect(r.issues.find((i) => i.field === "kind")!.hint).toBe('did you mean "Router"?');
  });

  it("reports a resource that is not a mapping, and an unknown resource-level field", () => {
    const text = doc("    - just-a-string\n", "    - apiVersion: net.routerd.net/v1alpha1\n      kind: Interface\n      metadata: { name: wan }\n      spec: {}\n      specs: {}\n");
    const r = loadConfig(text, "f.yaml");
    expect(errors(r.issues).map((i) => [i.resource, i.field, i.message, i.hint])).toEqual([
      ["resources[0]", undefined, "a resource must be a mapping with apiVersion, kind, metadata and spec", undefined],
      ["Interface/wan", "specs", 'unknown field "specs"', 'did you mean "spec"?'],
    ]);
  });

  it("rejects an invalid metadata.name and a missing kind", () => {
    const text = doc(res("Interface", "WAN_1", "{}"), "    - apiVersion: net.routerd.net/v1alpha1\n      metadata: { name: nokind }\n      spec: {}\n");
    const r = loadConfig(text, "f.yaml");
    expect(errors(r.issues).map((i) => [i.field, i.message])).toEqual([
      ["metadata.name", expect.stringMatching(/"WAN_1" is not a lowercase name/)],
      ["kind", "kind is required"],
    ]);
    expect(r.issues[1]!.hint).toMatch(/^known kinds: Interface, /);
  });
});

describe("loadConfig: references", () => {
  it("says which kinds a reference may name and which exist", () => {
    const text = doc(IFACES, res("FirewallZone", "trust", "{ role: trust, interfaces: [lan] }"), res("FirewallRule", "r", "{ fromZone: dmz, toZone: self, action: accept }"));
    const issue = errors(loadConfig(text, "f.yaml").issues)[0]!;
    expect(issue).toMatchObject({ resource: "FirewallRule/r", field: "spec.fromZone", message: 'no FirewallZone named "dmz"', ...at(text, "dmz") });
    expect(issue.hint).toBe("it may name a FirewallZone resource (existing: trust)");
  });

  it("says when no resource of the referenced kind exists", () => {
    const text = doc(IFACES, res("NAT44Rule", "n", "{ egressInterface: wan, sourceSet: lan-clients }"));
    const issue = errors(loadConfig(text, "f.yaml").issues)[0]!;
    expect(issue).toMatchObject({ field: "spec.sourceSet", message: 'no IPAddressSet named "lan-clients"', hint: "it may name an IPAddressSet resource (none is defined)" });
  });

  it("locates a reference inside a list of objects", () => {
    const text = doc(
      IFACES,
      res("EgressRoutePolicy", "p", "{ candidates: [{ name: a, interface: wan, table: 101, mark: 257, priority: 1101 }, { name: b, interface: isp9, table: 102, mark: 258, priority: 1102 }] }"),
    );
    expect(errors(loadConfig(text, "f.yaml").issues)).toEqual([
      expect.objectContaining({ field: "spec.candidates[1].interface", message: `no ${INTERFACE_KINDS.join(" or ")} named "isp9"`, ...at(text, "isp9") }),
    ]);
  });

  it("checks the references of a resource with schema errors too, and counts its name as defined", () => {
    const text = doc(res("Interface", "wan", "{ mtu: 1 }"), res("NAT44Rule", "n", "{ egressInterface: wan, sourceSet: nope, typo: 1 }"));
    const errs = errors(loadConfig(text, "f.yaml").issues);
    expect(errs.map((i) => [i.resource, i.field])).toEqual([
      ["Interface/wan", "spec.mtu"],
      ["NAT44Rule/n", "spec.sourceSet"],
      ["NAT44Rule/n", "spec.typo"],
    ]);
  });
});

describe("loadConfig: a valid config", () => {
  const text = doc(
    IFACES,
    res("IPv4Route", "default", "{ destination: default, gateway: 192.0.2.1 }"),
    res("NAT44Rule", "nat", "{ egressInterface: wan }"),
    res("HealthCheck", "probe", "{ type: icmp, target: 192.0.2.1 }"),
    res("PortForward", "web", "{ listen: { interface: wan, protocol: tcp, port: 80 }, target: { address: 192.168.1.10 } }"),
    res("EgressRoutePolicy", "p", "{ candidates: [{ name: a, interface: wan, table: 101, mark: \"0x101\", priority: 1101 }] }"),
    res("Sysctl", "fwd", "{ key: net.ipv4.ip_forward, value: true }"),
  );
  const r = loadConfig(text, "f.yaml");
  const spec = (name: string) => r.config!.resources.find((x) => x.metadata.name === name)!.spec;

  it("has no issues and keeps resources in file order with their positions", () => {
    expect(r.issues).toEqual([]);
    expect(r.config!.name).toBe("test");
    expect(r.config!.resources.map((x) => [x.index, x.kind])).toEqual([
      [0, "Interface"],
      [1, "Interface"],
      [2, "IPv4Route"],
      [3, "NAT44Rule"],
      [4, "HealthCheck"],
      [5, "PortForward"],
      [6, "EgressRoutePolicy"],
      [7, "Sysctl"],
    ]);
    expect(r.config!.resources[2]!.position).toEqual({ file: "f.yaml", ...at(text, "apiVersion: net.routerd.net/v1alpha1\n      kind: IPv4Route") });
  });

  it.each<[string, Record<string, unknown>]>([
    ["wan", { ifname: "wan0", managed: true, adminUp: true }],
    ["default", { destination: "0.0.0.0/0", gateway: "192.0.2.1", metric: 0, table: "main", type: "unicast" }],
    ["nat", { type: "masquerade", egressInterface: "wan", sourceRanges: [], excludeDestinationCIDRs: [] }],
    ["probe", { type: "icmp", target: "192.0.2.1", interval: "5s", timeout: "1s", healthyThreshold: 2, unhealthyThreshold: 3 }],
    ["web", { listen: { interface: "wan", protocol: "tcp", port: 80 }, target: { address: "192.168.1.10" }, sourceCIDRs: [], hairpin: { enabled: false } }],
    ["fwd", { key: "net.ipv4.ip_forward", value: "1", persistent: false }],
  ])("fills defaults and normalises values (%s)", (name, expected) => {
    expect(spec(name)).toEqual(expected);
  });

  it("fills defaults inside list items", () => {
    expect(spec("p")).toMatchObject({ family: "ipv4", sourceCIDRs: [], destinationCIDRs: [], failbackDelay: "10s", candidates: [{ weight: 100, mark: "0x101" }] });
  });

  it("does not share default objects between resources", () => {
    const again = loadConfig(text, "f.yaml");
    (spec("nat") as { sourceRanges: string[] }).sourceRanges.push("10.0.0.0/8");
    expect((again.config!.resources.find((x) => x.metadata.name === "nat")!.spec as { sourceRanges: string[] }).sourceRanges).toEqual([]);
  });

  it("records the references each resource makes", () => {
    const pf = r.config!.resources.find((x) => x.metadata.name === "web")!;
    expect(pf.refs).toEqual([{ path: ["spec", "listen", "interface"], name: "wan", kinds: INTERFACE_KINDS }]);
  });

  it("keeps warnings without failing", () => {
    const w = loadConfig(doc(IFACES, res("FirewallPolicy", "fw", "{}")), "f.yaml");
    expect(w.config).toBeDefined();
    expect(w.issues).toEqual([expect.objectContaining({ severity: "warning", resource: "FirewallPolicy/fw", field: "spec.defaultInput" })]);
  });
});

describe("formatPath", () => {
  it.each([
    [[], ""],
    [["spec"], "spec"],
    [["spec", "candidates", 0, "mark"], "spec.candidates[0].mark"],
    [[0, "a"], "[0].a"],
  ] as const)("%j → %s", (path, expected) => {
    expect(formatPath([...path])).toBe(expected);
  });
});
