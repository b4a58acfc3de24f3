import { describe, expect, it } from "vitest";
import { ARTIFACT_KINDS, artifactId, ownerKey, parseOwnerKey, type ArtifactKind, type DesiredArtifact, type OwnerKey } from "./artifact.js";
import { findLookAlikes, findOrphans, planGc, type GcAction, type GcInput, type GcPlan } from "./gc-planner.js";
import { knownKind, unknownKind, type Inventory } from "./inventory.js";
import type { LedgerEntry } from "./ledger.js";
import type { LifecycleContract } from "./lifecycle.js";
import type { ObjectStatus } from "./status.js";
import { teardownRegistry } from "./teardown-registry.js";

// ---- a small world: owners, their kinds' contracts, and builders for ledger/status/inventory ----

const NET = "net.routerd.net/v1alpha1";
const SYS = "system.routerd.net/v1alpha1";
const FW = "firewall.routerd.net/v1alpha1";

const O = {
  wan: ownerKey(NET, "Interface", "wan"),
  nat: ownerKey(NET, "NAT44Rule", "lan"),
  fwd: ownerKey(FW, "PortForward", "web"),
  egress: ownerKey(NET, "EgressRoutePolicy", "internet"),
  probe: ownerKey(NET, "HealthCheck", "isp1"),
  route: ownerKey(NET, "IPv4Route", "default"),
  lanAddr: ownerKey(NET, "IPv4StaticAddress", "lan"),
  bareAddr: ownerKey(NET, "BareAddress", "legacy"),
  sysctl: ownerKey(SYS, "Sysctl", "forward"),
  cluster: ownerKey(SYS, "RouterdCluster", "pair"),
  set: ownerKey(NET, "IPAddressSet", "admins"),
};

/** Contracts by kind, as the api package's KINDS declare them (a kind, not a resource, has a contract). */
const CONTRACTS: Record<string, LifecycleContract> = {
  Interface: { type: "ArtifactKinds", artifactKinds: ["linux.link"] },
  NAT44Rule: { type: "ArtifactKinds", artifactKinds: ["nft.table"] },
  PortForward: { type: "ArtifactKinds", artifactKinds: ["nft.table"] },
  EgressRoutePolicy: { type: "ArtifactKinds", artifactKinds: ["nft.table", "linux.ipv4.fwmarkRule", "linux.ipv4.routeTable", "linux.ipv4.route"] },
  HealthCheck: { type: "ArtifactKinds", artifactKinds: ["routerd.daemon"] },
  IPv4Route: { type: "ArtifactKinds", artifactKinds: ["linux.ipv4.route"] },
  IPv4StaticAddress: { type: "TeardownLifecycle", teardown: "resource", artifactKinds: ["linux.ipv4.address"] },
  // A kind that (wrongly) lists addresses under generic teardown: GC must still not remove them.
  BareAddress: { type: "ArtifactKinds", artifactKinds: ["linux.ipv4.address"] },
  Sysctl: { type: "ArtifactKinds", artifactKinds: ["linux.sysctl", "file"] },
  RouterdCluster: { type: "TeardownLifecycle", teardown: "resource", artifactKinds: ["routerd.lease"] },
  IPAddressSet: { type: "ArtifactKinds", artifactKinds: ["nft.set"] },
};
const contractOf = (owner: OwnerKey) => CONTRACTS[parseOwnerKey(owner).kind];

const A = {
  wanLink: ["linux.link", "wan0"],
  natTable: ["nft.table", "ip/routerd_nat"],
  policyTable: ["nft.table", "ip/routerd_policy"],
  foreignTable: ["nft.table", "ip/routerd_x"],
  rule150: ["linux.ipv4.fwmarkRule", "priority=1150,mark=0x150,table=150"],
  rule50: ["linux.ipv4.fwmarkRule", "priority=50,mark=0x50,table=150"],
  table150: ["linux.ipv4.routeTable", "150"],
  route150: ["linux.ipv4.route", "table=150,dst=0.0.0.0/0,metric=0"],
  defaultRoute: ["linux.ipv4.route", "table=254,dst=0.0.0.0/0,metric=0"],
  daemon: ["routerd.daemon", "routerd-healthcheck/default"],
  lanAddress: ["linux.ipv4.address", "lan0/192.168.1.1/24"],
  forwarding: ["linux.sysctl", "net.ipv4.ip_forward"],
  sysctlBlock: ["file", "/etc/sysctl.d/90-routerd.conf#net.ipv4.ip_forward"],
  wholeFile: ["file", "/etc/sysctl.d/90-routerd.conf"],
  natSet: ["nft.set", "ip/routerd_nat/set_admins"],
  lease: ["routerd.lease", "/var/lib/routerd/cluster.lease"],
} satisfies Record<string, [ArtifactKind, string]>;
type Ref = [ArtifactKind, string];

const id = ([kind, name]: Ref) => `${kind}/${name}`;
const short = (owner: OwnerKey) => `${parseOwnerKey(owner).kind}/${parseOwnerKey(owner).name}`;

function want(ref: Ref, ...owners: OwnerKey[]): DesiredArtifact {
  return { kind: ref[0], name: ref[1], owners: [...owners].sort(), action: "ensure", applyWith: "test", attributes: {} };
}

function led(ref: Ref, owners: OwnerKey | OwnerKey[], over: Partial<LedgerEntry> = {}): LedgerEntry {
  const list = [owners].flat().sort();
  return {
    kind: ref[0],
    name: ref[1],
    owner: list[0]!,
    owners: list,
    ownership: "created",
    state: "present",
    attributes: { recorded: true },
    generation: 1,
    recordedAt: "2026-01-01T00:00:00.000Z",
    ...over,
  };
}

function status(owner: OwnerKey, over: Partial<ObjectStatus> = {}): ObjectStatus {
  const c = contractOf(owner)!;
  return { owner, lifecycleClass: "system", contract: c.type, phase: "Ready", artifacts: [], updatedAt: "2026-01-01T00:00:00.000Z", ...over };
}

/** Every kind observed (empty) unless a case says otherwise: a string means that observer failed. */
function inventory(host: Ref[], overrides: Partial<Record<ArtifactKind, string | "missing">> = {}): Inventory {
  const inv: Inventory = new Map();
  for (const kind of ARTIFACT_KINDS) {
    const o = overrides[kind];
    if (o === "missing") continue;
    if (o !== undefined) inv.set(kind, unknownKind(o));
    else inv.set(kind, knownKind(host.filter(([k]) => k === kind).map(([k, name]) => ({ kind: k, name, attributes: { observed: true } }))));
  }
  return inv;
}

interface World {
  /** Active resources and what they want. */
  active: [OwnerKey, Ref[]][];
  /** In the config but `when: false`. */
  inactive?: OwnerKey[];
  /** In the config with an undecidable `when`. */
  undecided?: OwnerKey[];
  ledger?: LedgerEntry[];
  statuses?: ObjectStatus[];
  host?: Ref[];
  unknown?: Partial<Record<ArtifactKind, string | "missing">>;
  allowEmpty?: boolean;
}

function input(w: World): GcInput {
  const desired: DesiredArtifact[] = [];
  for (const [owner, refs] of w.active) {
    for (const ref of refs) {
      const d = desired.find((x) => x.kind === ref[0] && x.name === ref[1]);
      if (d) d.owners = [...d.owners, owner].sort();
      else desired.push(want(ref, owner));
    }
  }
  const active = new Set(w.active.map(([o]) => o));
  return {
    desired,
    activeOwners: active,
    configuredOwners: new Set([...active, ...(w.inactive ?? []), ...(w.undecided ?? [])]),
    protectedOwners: new Set(w.undecided ?? []),
    // As Ledger.list() hands them over: sorted by artifact id.
    ledger: [...(w.ledger ?? [])].sort((a, b) => artifactId(a).localeCompare(artifactId(b))),
    statuses: new Map((w.statuses ?? []).map((s) => [s.owner, s])),
    inventory: inventory(w.host ?? [], w.unknown),
    contractOf,
    teardown: teardownRegistry,
    allowEmpty: w.allowEmpty ?? false,
  };
}

function summarize(a: GcAction): string {
  switch (a.type) {
    case "backupState":
      return "backupState";
    case "removeArtifact":
      return `remove ${a.kind}/${a.name}`;
    case "teardownResource":
      return `teardown ${short(a.owner)} [${a.artifacts.map(artifactId).join(", ")}]`;
    case "forgetLedger":
      return `forget ${a.kind}/${a.name}`;
    case "deleteStatus":
      return `deleteStatus ${short(a.owner)}`;
    case "recordEvent":
      return "recordEvent";
  }
}

const VERB: Record<GcAction["type"], string> = {
  backupState: "backupState",
  removeArtifact: "remove",
  teardownResource: "teardown",
  forgetLedger: "forget",
  deleteStatus: "deleteStatus",
  recordEvent: "recordEvent",
};
const reasonOf = (plan: GcPlan, type: GcAction["type"], subject: string) =>
  plan.actions.find((a) => a.type === type && summarize(a).startsWith(`${VERB[type]} ${subject}`))?.reason;

/** The interface every world keeps, so the desired set is never empty unless a case says so. */
const base: [OwnerKey, Ref[]] = [O.wan, [A.wanLink]];
const baseLedger = led(A.wanLink, O.wan);

// ---- table-driven planner cases ----

interface Case {
  name: string;
  world: World;
  actions: string[];
  lookAlikes?: string[];
  skipped?: { id: string; reason: RegExp }[];
  orphans?: string[];
  reasons?: [GcAction["type"], string, RegExp][];
  blocked?: RegExp;
}

const cases: Case[] = [
  {
    name: "everything desired and present: no actions, no backup, no event",
    world: { active: [base, [O.nat, [A.natTable]]], ledger: [baseLedger, led(A.natTable, O.nat)], host: [A.wanLink, A.natTable] },
    actions: [],
  },
  {
    name: "a ledger-owned nft table nobody wants is removed, then forgotten",
    world: { active: [base], ledger: [baseLedger, led(A.natTable, O.nat)], host: [A.wanLink, A.natTable] },
    actions: ["backupState", `remove ${id(A.natTable)}`, `forget ${id(A.natTable)}`, "recordEvent"],
    orphans: [id(A.natTable)],
    reasons: [["removeArtifact", id(A.natTable), /NAT44Rule\/lan is no longer in the config/]],
  },
  {
    name: "foreign look-alike ip/routerd_x (not in the ledger) is reported, never removed",
    world: { active: [base], ledger: [baseLedger], host: [A.wanLink, A.foreignTable, ["nft.table", "inet/filter"]] },
    actions: [],
    lookAlikes: [id(A.foreignTable)],
    orphans: [],
  },
  {
    name: "fwmark 0x50 in the ledger: the guard refuses, it is forgotten, not removed",
    world: { active: [base], ledger: [baseLedger, led(A.rule50, O.egress)], host: [A.wanLink, A.rule50] },
    actions: ["backupState", `forget ${id(A.rule50)}`, "recordEvent"],
    orphans: [id(A.rule50)],
    reasons: [["forgetLedger", id(A.rule50), /outside 0x100-0x1ff/]],
  },
  {
    name: "fwmark 0x150 orphan is removed",
    world: { active: [base], ledger: [baseLedger, led(A.rule150, O.egress)], host: [A.wanLink, A.rule150] },
    actions: ["backupState", `remove ${id(A.rule150)}`, `forget ${id(A.rule150)}`, "recordEvent"],
  },
  {
    name: "fwmark 0x150 rule on the host but not in the ledger is a look-alike, not an orphan",
    world: { active: [base], ledger: [baseLedger], host: [A.wanLink, A.rule150, A.rule50] },
    actions: [],
    lookAlikes: [id(A.rule150)],
  },
  {
    name: "desired and present but not in the ledger: an adoption candidate, neither orphan nor look-alike",
    world: { active: [base, [O.nat, [A.natTable]]], ledger: [baseLedger], host: [A.wanLink, A.natTable] },
    actions: [],
    lookAlikes: [],
    orphans: [],
  },
  {
    name: "an adopted entry whose owner left: ownership released (forgotten), left on the host",
    world: { active: [base], ledger: [baseLedger, led(A.natTable, O.nat, { ownership: "adopted" })], host: [A.wanLink, A.natTable] },
    actions: ["backupState", `forget ${id(A.natTable)}`, "recordEvent"],
    orphans: [id(A.natTable)],
    reasons: [["forgetLedger", id(A.natTable), /adopted, not created/]],
  },
  {
    name: "unknown inventory of a kind: no action for that kind (skip with reason), other kinds proceed",
    world: {
      active: [base],
      ledger: [baseLedger, led(A.natTable, O.nat), led(A.defaultRoute, O.route)],
      host: [A.wanLink, A.natTable, A.defaultRoute],
      unknown: { "nft.table": "nft -j list tables failed: exit 1" },
    },
    actions: ["backupState", `remove ${id(A.defaultRoute)}`, `forget ${id(A.defaultRoute)}`, "recordEvent"],
    skipped: [{ id: id(A.natTable), reason: /nft.table inventory is unknown \(nft -j list tables failed: exit 1\)/ }],
    lookAlikes: [],
  },
  {
    name: "a kind the observers never looked at counts as unknown",
    world: { active: [base], ledger: [baseLedger, led(A.rule150, O.egress)], host: [A.wanLink, A.rule150], unknown: { "linux.ipv4.fwmarkRule": "missing" } },
    actions: [],
    skipped: [{ id: id(A.rule150), reason: /was not observed/ }],
  },
  {
    name: "empty config with a non-empty ledger is blocked",
    world: { active: [], ledger: [baseLedger, led(A.natTable, O.nat)], host: [A.wanLink, A.natTable] },
    actions: [],
    blocked: /--allow-empty/,
  },
  {
    name: "empty config with statuses only is blocked too",
    world: { active: [], statuses: [status(O.nat)] },
    actions: [],
    blocked: /desired set is empty/,
  },
  {
    name: "empty config with allowEmpty cleans up what routerd owns",
    world: { active: [], ledger: [led(A.natTable, O.nat), led(A.wanLink, O.wan)], statuses: [status(O.nat)], host: [A.wanLink, A.natTable], allowEmpty: true },
    actions: ["backupState", `remove ${id(A.natTable)}`, `forget ${id(A.wanLink)}`, `forget ${id(A.natTable)}`, "deleteStatus NAT44Rule/lan", "recordEvent"],
    reasons: [["forgetLedger", id(A.wanLink), /links are never deleted/]],
  },
  {
    name: "empty config, empty ledger, no statuses: nothing to block, nothing to do",
    world: { active: [] },
    actions: [],
  },
  {
    name: "a `when`-protected owner keeps its artifacts and its status",
    world: {
      active: [base],
      undecided: [O.egress],
      ledger: [baseLedger, led(A.rule150, O.egress), led(A.policyTable, O.egress)],
      statuses: [status(O.egress)],
      host: [A.wanLink, A.rule150, A.policyTable],
    },
    actions: [],
    skipped: [
      { id: id(A.policyTable), reason: /undecided \(`when`\)/ },
      { id: id(A.rule150), reason: /undecided \(`when`\)/ },
    ],
  },
  {
    name: "a shared artifact one of whose owners is protected is kept",
    world: { active: [base], undecided: [O.fwd], ledger: [baseLedger, led(A.natTable, [O.nat, O.fwd])], host: [A.wanLink, A.natTable] },
    actions: [],
    skipped: [{ id: id(A.natTable), reason: /undecided/ }],
  },
  {
    name: "a shared nft table still wanted by one owner stays when the other leaves",
    world: { active: [base, [O.fwd, [A.natTable]]], ledger: [baseLedger, led(A.natTable, [O.nat, O.fwd])], host: [A.wanLink, A.natTable] },
    actions: [],
  },
  {
    name: "a ledger entry absent from the host is forgotten",
    world: { active: [base], ledger: [baseLedger, led(A.natTable, O.nat)], host: [A.wanLink] },
    actions: ["backupState", `forget ${id(A.natTable)}`, "recordEvent"],
    orphans: [],
    reasons: [["forgetLedger", id(A.natTable), /no longer on the host/]],
  },
  {
    name: "a pending (write-ahead) entry: absent is forgotten, present is an orphan like any other",
    world: {
      active: [base],
      ledger: [baseLedger, led(A.natTable, O.nat, { state: "pending" }), led(A.rule150, O.egress, { state: "pending" })],
      host: [A.wanLink, A.rule150],
    },
    actions: ["backupState", `remove ${id(A.rule150)}`, `forget ${id(A.rule150)}`, `forget ${id(A.natTable)}`, "recordEvent"],
  },
  {
    name: "an address of a removed IPv4StaticAddress goes through its owner's teardown (TeardownLifecycle)",
    world: {
      active: [base],
      ledger: [baseLedger, led(A.lanAddress, O.lanAddr)],
      statuses: [status(O.lanAddr, { artifacts: [{ kind: "linux.ipv4.address", name: A.lanAddress[1] }] })],
      host: [A.wanLink, A.lanAddress],
    },
    actions: ["backupState", `teardown IPv4StaticAddress/lan [${id(A.lanAddress)}]`, "deleteStatus IPv4StaticAddress/lan", "recordEvent"],
    orphans: [id(A.lanAddress)],
  },
  {
    name: "an address whose owner's kind has no resource teardown is left on the host and forgotten",
    world: { active: [base], ledger: [baseLedger, led(A.lanAddress, O.bareAddr)], host: [A.wanLink, A.lanAddress] },
    actions: ["backupState", `forget ${id(A.lanAddress)}`, "recordEvent"],
    reasons: [["forgetLedger", id(A.lanAddress), /removed only by its owner's teardown, and .*BareAddress\/legacy has none/]],
  },
  {
    name: "an externally managed address owner is never torn down",
    world: {
      active: [base],
      ledger: [baseLedger, led(A.lanAddress, O.lanAddr)],
      statuses: [status(O.lanAddr, { external: true })],
      host: [A.wanLink, A.lanAddress],
    },
    actions: ["backupState", `forget ${id(A.lanAddress)}`, "deleteStatus IPv4StaticAddress/lan", "recordEvent"],
    reasons: [["forgetLedger", id(A.lanAddress), /externally managed/]],
  },
  {
    name: "a removed RouterdCluster's teardown runs from its status even with no ledger entries left",
    world: { active: [base], ledger: [baseLedger], statuses: [status(O.cluster)], host: [A.wanLink] },
    actions: ["backupState", "teardown RouterdCluster/pair []", "deleteStatus RouterdCluster/pair", "recordEvent"],
  },
  {
    name: "removals run in teardown-registry order (daemon, table, rule, route, route table)",
    world: {
      active: [base],
      ledger: [baseLedger, led(A.table150, O.egress), led(A.route150, O.egress), led(A.rule150, O.egress), led(A.policyTable, O.egress), led(A.daemon, O.probe)],
      host: [A.wanLink, A.table150, A.route150, A.rule150, A.policyTable, A.daemon],
    },
    actions: [
      "backupState",
      `remove ${id(A.daemon)}`,
      `remove ${id(A.policyTable)}`,
      `remove ${id(A.rule150)}`,
      `remove ${id(A.route150)}`,
      `remove ${id(A.table150)}`,
      `forget ${id(A.rule150)}`,
      `forget ${id(A.route150)}`,
      `forget ${id(A.table150)}`,
      `forget ${id(A.policyTable)}`,
      `forget ${id(A.daemon)}`,
      "recordEvent",
    ],
  },
  {
    name: "statuses of owners that left the config are deleted; statuses of configured owners are kept",
    world: { active: [base], inactive: [O.route], ledger: [baseLedger], statuses: [status(O.nat), status(O.route), status(O.wan)], host: [A.wanLink] },
    actions: ["backupState", "deleteStatus NAT44Rule/lan", "recordEvent"],
  },
  {
    name: "`when: false` owner: its artifacts are torn down, its status is kept",
    world: {
      active: [base],
      inactive: [O.route, O.lanAddr],
      ledger: [baseLedger, led(A.defaultRoute, O.route), led(A.lanAddress, O.lanAddr)],
      statuses: [
        status(O.route, { phase: "Pending", reason: "WhenFalse" }),
        status(O.lanAddr, { phase: "Pending", reason: "WhenFalse", artifacts: [{ kind: "linux.ipv4.address", name: A.lanAddress[1] }] }),
      ],
      host: [A.wanLink, A.defaultRoute, A.lanAddress],
    },
    actions: ["backupState", `teardown IPv4StaticAddress/lan [${id(A.lanAddress)}]`, `remove ${id(A.defaultRoute)}`, `forget ${id(A.defaultRoute)}`, "recordEvent"],
    reasons: [
      ["removeArtifact", id(A.defaultRoute), /IPv4Route\/default is inactive \(when: false\)/],
      ["teardownResource", "IPv4StaticAddress/lan", /inactive \(when: false\)/],
    ],
  },
  {
    name: "`when: false` owner after its teardown (status lists no artifacts): nothing to do, no backup churn",
    world: {
      active: [base],
      inactive: [O.lanAddr],
      ledger: [baseLedger],
      statuses: [status(O.lanAddr, { phase: "Pending", reason: "WhenFalse", artifacts: [] })],
      host: [A.wanLink],
    },
    actions: [],
  },
  {
    name: "sysctl values and whole files are never removed: forgotten; a routerd-owned file block is removed",
    world: {
      active: [base],
      ledger: [baseLedger, led(A.forwarding, O.sysctl), led(A.sysctlBlock, O.sysctl), led(A.wholeFile, O.sysctl)],
      host: [A.wanLink, A.forwarding, A.sysctlBlock, A.wholeFile],
    },
    actions: ["backupState", `remove ${id(A.sysctlBlock)}`, `forget ${id(A.wholeFile)}`, `forget ${id(A.sysctlBlock)}`, `forget ${id(A.forwarding)}`, "recordEvent"],
    reasons: [
      ["forgetLedger", id(A.forwarding), /sysctl values are reconciled, never deleted/],
      ["forgetLedger", id(A.wholeFile), /whole file/],
    ],
  },
  {
    name: "an nft set goes with its table: forgotten, not removed on its own",
    world: { active: [base, [O.nat, [A.natTable]]], ledger: [baseLedger, led(A.natTable, O.nat), led(A.natSet, O.set)], host: [A.wanLink, A.natTable, A.natSet] },
    actions: ["backupState", `forget ${id(A.natSet)}`, "recordEvent"],
  },
];

describe("planGc", () => {
  it.each(cases)("$name", (c) => {
    const before = input(c.world);
    const snapshot = structuredClone({ ...before, contractOf: undefined, teardown: undefined });
    const plan = planGc(before);

    expect(plan.actions.map(summarize)).toEqual(c.actions);
    if (c.blocked) expect(plan.blocked).toMatch(c.blocked);
    else expect(plan.blocked).toBeUndefined();
    if (c.lookAlikes) expect(plan.lookAlikes.map(artifactId)).toEqual(c.lookAlikes);
    if (c.orphans) expect(plan.orphans.map(artifactId).sort()).toEqual([...c.orphans].sort());
    expect(plan.skipped.map((s) => artifactId(s)).sort()).toEqual((c.skipped ?? []).map((s) => s.id).sort());
    for (const s of c.skipped ?? []) expect(plan.skipped.find((x) => artifactId(x) === s.id)!.reason).toMatch(s.reason);
    for (const [type, subject, reason] of c.reasons ?? []) expect(reasonOf(plan, type, subject), `${type} ${subject}`).toMatch(reason);

    // Whenever there are actions: a backup first, the audit event last, with counts of what is between.
    if (plan.actions.length > 0) {
      expect(plan.actions[0]!.type).toBe("backupState");
      const last = plan.actions.at(-1)!;
      expect(last.type).toBe("recordEvent");
      const counts: Record<string, number> = {};
      for (const a of plan.actions.slice(1, -1)) counts[a.type] = (counts[a.type] ?? 0) + 1;
      expect(last.type === "recordEvent" && last.counts).toEqual(counts);
    }
    // Nothing outside the ledger is ever removed or torn down.
    const ledgerIds = new Set(before.ledger.map(artifactId));
    for (const a of plan.actions) {
      if (a.type === "removeArtifact") expect(ledgerIds.has(artifactId(a))).toBe(true);
      if (a.type === "teardownResource") for (const x of a.artifacts) expect(ledgerIds.has(artifactId(x))).toBe(true);
    }
    // Pure: the input is untouched.
    expect({ ...before, contractOf: undefined, teardown: undefined }).toEqual(snapshot);
  });

  it("carries the ledger's attributes and the registry's operation on a removal", () => {
    const plan = planGc(input({ active: [base], ledger: [baseLedger, led(A.natTable, O.nat, { attributes: { family: "ip", table: "routerd_nat" } })], host: [A.wanLink, A.natTable] }));
    expect(plan.actions[1]).toEqual({
      type: "removeArtifact",
      kind: "nft.table",
      name: "ip/routerd_nat",
      owner: O.nat,
      operation: teardownRegistry.get("nft.table").operation,
      attributes: { family: "ip", table: "routerd_nat" },
      reason: `orphan: ${O.nat} is no longer in the config`,
    });
  });
});

describe("findOrphans", () => {
  it("returns ledger-owned artifacts present on the host that nothing wants, with their ownership", () => {
    const ledger = [baseLedger, led(A.natTable, O.nat, { ownership: "adopted" }), led(A.rule150, O.egress), led(A.defaultRoute, O.route)];
    const orphans = findOrphans([want(A.wanLink, O.wan)], ledger, inventory([A.wanLink, A.natTable, A.rule150], { "linux.ipv4.route": "ip -j route failed" }));
    expect(orphans.map((o) => [artifactId(o), o.ownership, o.owner])).toEqual([
      [id(A.natTable), "adopted", O.nat],
      [id(A.rule150), "created", O.egress],
    ]);
    expect(orphans[0]!.observed).toEqual({ observed: true });
  });
});

describe("findLookAlikes", () => {
  it("lists names in routerd's namespaces that are neither desired nor in the ledger", () => {
    const host: Ref[] = [A.foreignTable, A.natTable, A.policyTable, A.rule150, A.rule50, ["systemd.service", "routerd-old.service"], ["systemd.service", "ssh.service"]];
    const found = findLookAlikes([want(A.natTable, O.nat)], [led(A.policyTable, O.egress)], inventory(host), teardownRegistry);
    expect(found.map(artifactId)).toEqual([id(A.rule150), id(A.foreignTable), "systemd.service/routerd-old.service"]);
  });

  it("ignores kinds whose inventory is unknown", () => {
    expect(findLookAlikes([], [], inventory([A.foreignTable], { "nft.table": "nft failed" }), teardownRegistry)).toEqual([]);
  });
});
