// Golden files for routerd-dns-resolver's config: every folder under testdata/ holds a router.yaml and one
// <DNSResolver name>.json per resolver. `ROUTERD_UPDATE_GOLDEN=1 npx vitest run --project unit packages/render`
// rewrites them; apps/routerd-dns-resolver's config test parses each with the daemon's strict parser.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig, makeConfigView } from "@routerd/api";
import { describe, expect, it } from "vitest";
import { renderDnsResolverConfig } from "./resolver-config.js";

const TESTDATA = new URL("./testdata", import.meta.url).pathname;
const UPDATE = process.env.ROUTERD_UPDATE_GOLDEN === "1";

describe.each(readdirSync(TESTDATA).sort())("golden dns-resolver config %s", (name) => {
  const dir = join(TESTDATA, name);
  const file = join(dir, "router.yaml");
  const loaded = loadConfig(readFileSync(file, "utf8"), file);

  it("loads without errors", () => expect(loaded.issues.filter((i) => i.severity === "error")).toEqual([]));

  const view = loaded.config ? makeConfigView(loaded.config) : undefined;
  const resolvers = view?.all("DNSResolver").map((r) => r.metadata.name) ?? [];
  it.each(resolvers)("renders %s.json as in the golden file", (resolver) => {
    const actual = JSON.stringify(renderDnsResolverConfig({ view: view!, resolver, stateDir: "/var/lib/routerd", root: "/" }), null, 2) + "\n";
    const expectedPath = join(dir, `${resolver}.json`);
    if (UPDATE || !existsSync(expectedPath)) writeFileSync(expectedPath, actual);
    expect(actual).toBe(readFileSync(expectedPath, "utf8"));
  });
});
