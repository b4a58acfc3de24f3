// Golden files for `routerd render`: every example config and the all-kinds config, rendered with the
// default directories, compared with testdata/<name>.txt. ROUTERD_UPDATE_GOLDEN=1 (npm run golden) rewrites.
import { readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { loadConfig } from "@routerd/api";
import { describe, expect, it } from "vitest";
import { OUTPUT_KIND_NAMES, outputsToText, renderContext, renderOutputs } from "./outputs.js";

const REPO = new URL("../../../..", import.meta.url).pathname;
const TESTDATA = new URL("testdata", import.meta.url).pathname;
const UPDATE = process.env.ROUTERD_UPDATE_GOLDEN === "1";
const CONFIGS = [
  "examples/nat-gateway.yaml",
  "examples/two-uplink-policy.yaml",
  "examples/zone-firewall.yaml",
  "packages/api/src/testdata/all-kinds.yaml",
  // pins the systemd-resolved drop-in (a DNSResolver on the wildcard address)
  "apps/routerd/src/render/testdata/resolver-on-wildcard.yaml",
];
const DIRS = { root: "/", stateDir: "/var/lib/routerd", runDir: "/run/routerd" };

/** Paths that depend on the machine (node, the checkout) become placeholders. */
const portable = (text: string) => text.replaceAll(process.execPath, "<node>").replaceAll(REPO.replace(/\/$/, ""), "<repo>");

describe.each(CONFIGS)("render %s", (file) => {
  const loaded = loadConfig(readFileSync(join(REPO, file), "utf8"), file);
  const ctx = renderContext(loaded.config!, DIRS);

  it("matches the golden file", () => {
    const actual = portable(outputsToText(renderOutputs(ctx)));
    const golden = join(TESTDATA, `${basename(file, ".yaml")}.txt`);
    if (UPDATE) writeFileSync(golden, actual);
    expect(actual).toBe(readFileSync(golden, "utf8"));
  });

  it("selects kinds and renders the same text as reconcile would write", () => {
    const nft = renderOutputs(ctx, ["nft"]);
    expect(nft.every((o) => o.kind === "nft")).toBe(true);
    for (const o of nft) expect(ctx.desired.desired.find((d) => d.kind === "nft.table" && d.name === o.name)?.attributes.content).toBe(o.content);
    expect(new Set(renderOutputs(ctx).map((o) => o.kind))).toEqual(new Set(OUTPUT_KIND_NAMES.filter((k) => renderOutputs(ctx, [k]).length)));
  });
});
