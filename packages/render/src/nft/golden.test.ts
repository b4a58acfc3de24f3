// Golden files: every folder under testdata/ holds a router.yaml and the expected text of each routerd
// table it needs; an optional down.json names IngressService backends that are down
// (`{ "service": ["backend", ...] }`). `ROUTERD_UPDATE_GOLDEN=1 npx vitest run --project unit packages/render` rewrites them.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig, makeConfigView, NFT_TABLES, vxlanClampMss, type ConfigView, type NftTableRole, type VXLANTunnelSpec } from "@routerd/api";
import { describe, expect, it } from "vitest";
import { ingressWithDown } from "./golden-support.js";
import { defaultSelection } from "./policy-table.js";
import { renderDesiredTables } from "./tables.js";

const TESTDATA = new URL("../testdata", import.meta.url).pathname;
const UPDATE = process.env.ROUTERD_UPDATE_GOLDEN === "1";
const ALL_TABLES = Object.values(NFT_TABLES).map((t) => `${t.family}/${t.table}`);

/** How many resources of a folder's config a table renders (none: it has no golden file). */
const RELEVANT: Record<NftTableRole, (view: ConfigView) => number> = {
  nat: (v) => v.all("NAT44Rule").length + v.all("PortForward").length + v.all("IngressService").length,
  filter: (v) => v.all("FirewallPolicy").length + v.all("FirewallZone").length + v.all("IngressService").length,
  policy: (v) => v.all("EgressRoutePolicy").length,
  mss: (v) => v.all<VXLANTunnelSpec>("VXLANTunnel").filter((x) => vxlanClampMss(x.spec)).length,
};
const ROLE_OF = new Map(Object.entries(NFT_TABLES).map(([role, t]) => [`${t.family}/${t.table}`, role as NftTableRole]));

describe.each(readdirSync(TESTDATA).sort())("golden %s", (name) => {
  const dir = join(TESTDATA, name);
  const file = join(dir, "router.yaml");
  const loaded = loadConfig(readFileSync(file, "utf8"), file);
  it("loads", () => expect(loaded.issues.filter((i) => i.severity === "error")).toEqual([]));
  const view = makeConfigView(loaded.config!);
  const holes = name === "zone-firewall" ? [{ owner: "DHCPv4Server/lan", ifnames: ["lan0"], protocol: "udp" as const, port: 67 }] : [];
  const tables = renderDesiredTables(ALL_TABLES, { view, selection: defaultSelection(view), holes, ingress: ingressWithDown(view, join(dir, "down.json")) });

  it.each(ALL_TABLES)("renders %s as in the golden file", (table) => {
    const expectedPath = join(dir, `${table.replace("/", "-")}.nft`);
    if (!RELEVANT[ROLE_OF.get(table)!](view)) {
      expect(existsSync(expectedPath)).toBe(false);
      return;
    }
    const actual = tables.get(table)!.content;
    if (UPDATE) writeFileSync(expectedPath, actual);
    expect(actual).toBe(readFileSync(expectedPath, "utf8"));
  });
});
