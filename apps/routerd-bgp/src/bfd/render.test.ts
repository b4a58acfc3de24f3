// bfdd.conf rendering against a golden file (ROUTERD_UPDATE_GOLDEN=1 rewrites it), checked by FRR itself in
// test-e2e/bgp/bfd.test.ts (bfdd brings sessions up from it).
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { renderBfddConfig } from "./render.js";

const GOLDEN = new URL("./testdata/bfdd.conf", import.meta.url);

describe("renderBfddConfig", () => {
  it("renders the used profiles and one peer per session, overrides only where they differ", () => {
    const text = renderBfddConfig("edge", [
      { name: "ix-bfd", spec: { peer: "2001:db8::2", profile: "slow", minTx: "2s" }, localAddress: "2001:db8::1" },
      { name: "isp-bfd", spec: { peer: "192.0.2.2", profile: "fast", detectMultiplier: 5, minRx: "100ms" }, localAddress: "192.0.2.1" },
    ]);
    if (process.env.ROUTERD_UPDATE_GOLDEN === "1") writeFileSync(GOLDEN, text);
    expect(text).toBe(readFileSync(GOLDEN, "utf8"));
  });

  it("an empty set of sessions is an empty bfd node", () => {
    expect(renderBfddConfig("edge", [])).toMatch(/^!.*\nbfd\n!\n$/);
  });
});
