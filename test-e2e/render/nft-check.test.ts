// Every golden table must be accepted by the real nft (a check run, `nft -c`, in a namespace of its own).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Netns } from "../lib/netns.js";

const TESTDATA = join(new URL("../..", import.meta.url).pathname, "packages/render/src/testdata");
const files = readdirSync(TESTDATA).flatMap((d) => readdirSync(join(TESTDATA, d)).filter((f) => f.endsWith(".nft")).map((f) => join(d, f)));

let ns: Netns;
beforeAll(() => {
  ns = Netns.create("rd-nft");
});
afterAll(() => ns.destroy());

describe("golden nft tables", () => {
  it("exist", () => expect(files.length).toBeGreaterThan(4));
  it.each(files)("%s passes nft -c", (file) => {
    const r = ns.exec("nft", ["-c", "-f", "-"], { input: readFileSync(join(TESTDATA, file), "utf8"), allowFail: true });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  });
});
