// pf.conf goldens: every testdata folder with a PortForward or IngressService has a pf-nat.conf (with
// down.json applied as for the nft goldens). No FreeBSD host here: these are checked by eye and by pf's
// grammar in pf.conf(5), not by pfctl -n. `ROUTERD_UPDATE_GOLDEN=1` rewrites them.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig, makeConfigView } from "@routerd/api";
import { describe, expect, it } from "vitest";
import { ingressWithDown } from "../nft/golden-support.js";
import { pfNatText, renderPfNat } from "./nat.js";

const TESTDATA = new URL("../testdata", import.meta.url).pathname;
const UPDATE = process.env.ROUTERD_UPDATE_GOLDEN === "1";

describe.each(readdirSync(TESTDATA).sort())("pf golden %s", (name) => {
  const dir = join(TESTDATA, name);
  const loaded = loadConfig(readFileSync(join(dir, "router.yaml"), "utf8"), join(dir, "router.yaml"));
  const view = makeConfigView(loaded.config!);
  const expectedPath = join(dir, "pf-nat.conf");
  it("renders as in pf-nat.conf", () => {
    if (!view.all("PortForward").length && !view.all("IngressService").length) {
      expect(existsSync(expectedPath)).toBe(false);
      return;
    }
    const actual = pfNatText(renderPfNat(view, ingressWithDown(view, join(dir, "down.json"))));
    if (UPDATE) writeFileSync(expectedPath, actual);
    expect(actual).toBe(readFileSync(expectedPath, "utf8"));
  });
});
