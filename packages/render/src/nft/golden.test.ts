// Golden files: every folder under testdata/ holds a router.yaml and the expected text of each routerd
// table it needs; an optional down.json names IngressService backends that are down
// (`{ "service": ["backend", ...] }`). `ROUTERD_UPDATE_GOLDEN=1 npx vitest run --project unit packages/render` rewrites them.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig, makeConfigView } from "@routerd/api";
import { describe, expect, it } from "vitest";
import { ingressWithDown } from "./golden-support.js";
import { defaultSelection } from "./policy-table.js";
import { renderDesiredTables } from "./tables.js";

const TESTDATA = new URL("../testdata", import.meta.url).pathname;
const UPDATE = process.env.ROUTERD_UPDATE_GOLDEN === "1";
const ALL_TABLES = ["ip/routerd_nat", "inet/routerd_filter", "ip/routerd_policy"];

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
    const services = view.all("IngressService").length;
    const relevant = table === "ip/routerd_nat" ? view.all("NAT44Rule").length + view.all("PortForward").length + services
      : table === "inet/routerd_filter" ? view.all("FirewallPolicy").length + view.all("FirewallZone").length + services
      : view.all("EgressRoutePolicy").length;
    if (!relevant) {
      expect(existsSync(expectedPath)).toBe(false);
      return;
    }
    const actual = tables.get(table)!.content;
    if (UPDATE) writeFileSync(expectedPath, actual);
    expect(actual).toBe(readFileSync(expectedPath, "utf8"));
  });
});
