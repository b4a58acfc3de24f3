// VRF: a Linux VRF device bound to a routing table, with member interfaces enslaved to it. Routes for the
// VRF go into its table (IPv4Route with table: <routeTable>); the same prefix may live in two VRFs.
import { formats } from "../formats.js";
import { API_GROUPS, defineKind } from "../kind.js";
import { t, type Infer } from "../schema.js";
import { createdIfname, createdLinkIntent, ifnameProblem } from "./link-intent.js";

/** Tables the kernel keeps for itself (unspec, default, main, local). */
const RESERVED_TABLES = new Set([0, 253, 254, 255]);

export const vrfSpec = t.object({
  ifname: t.optional(formats.ifname().describe("the VRF device's name (default: the resource's name)")),
  routeTable: t.int({ min: 1, max: 4294967295 }).describe("the routing table the VRF uses (not 253-255)"),
  members: t.withDefault(t.array(t.interfaceRef(), { unique: true }).describe("interfaces enslaved to the VRF"), []),
});

export type VRFSpec = Infer<typeof vrfSpec>;

export const vrfKind = defineKind<VRFSpec>({
  apiVersion: API_GROUPS.net,
  kind: "VRF",
  description: "A VRF device bound to a routing table; its member interfaces route in that table only.",
  class: "link",
  contract: { type: "ArtifactKinds", artifactKinds: ["linux.link"] },
  supportsWhen: false,
  spec: vrfSpec,
  ifname: (res) => createdIfname(res),
  provides: { ifname: "string", routeTable: "int", members: "stringList" },
  status: (res, ctx) => ({ fields: { ifname: createdIfname(res), routeTable: res.spec.routeTable, members: res.spec.members.map((m) => ctx.ifname(m)) } }),
  check(res, ctx) {
    const name = createdIfname(res);
    const bad = ifnameProblem(name);
    if (bad) ctx.error(["ifname"], bad, "set ifname");
    if (RESERVED_TABLES.has(res.spec.routeTable)) ctx.error(["routeTable"], `table ${res.spec.routeTable} is one of the kernel's own (0, 253, 254, 255)`, "use a table from 1-252 or 256 up");
    for (const other of ctx.all<VRFSpec>("VRF")) {
      if (other.index >= res.index) continue;
      if (other.spec.routeTable === res.spec.routeTable) ctx.error(["routeTable"], `VRF/${other.metadata.name} uses table ${res.spec.routeTable} too`, "give each VRF its own table");
      for (const m of res.spec.members) if (other.spec.members.includes(m)) ctx.error(["members"], `${m} is a member of VRF/${other.metadata.name} already`, "an interface belongs to one VRF");
    }
    if (res.spec.members.includes(res.metadata.name)) ctx.error(["members"], "a VRF cannot be its own member");
  },
  intents(res, ctx) {
    return [createdLinkIntent(res, { ifname: createdIfname(res), linkType: "vrf", linkData: { table: res.spec.routeTable }, members: res.spec.members.map((m) => ctx.ifname(m)) })];
  },
});
