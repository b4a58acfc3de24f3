// Every golden keepalived.conf (packages/render/src/vrrp/testdata) passes keepalived's own config check,
// in a namespace that has the interfaces it names.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Netns, REPO } from "../lib/netns.js";

const TESTDATA = join(REPO, "packages/render/src/vrrp/testdata");
let ns: Netns;
let tmp: string;

beforeAll(() => {
  ns = Netns.create("va-k");
  ns.veth("lan0", "wan0");
  tmp = mkdtempSync(join(tmpdir(), "routerd-ka-"));
});
afterAll(() => {
  ns?.destroy();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe.each(readdirSync(TESTDATA).sort())("keepalived --config-test %s", (name) => {
  it("accepts the rendered config", () => {
    const r = ns.exec("keepalived", ["--config-test", "-f", join(TESTDATA, name, "keepalived.conf"), "-p", join(tmp, `${name}.pid`), "-r", join(tmp, `${name}.vrrp.pid`)], { allowFail: true });
    expect(r.code, r.stderr + r.stdout).toBe(0);
  });
});
