import { describe, expect, it } from "vitest";
import { MatchSet_Type, RouteAction } from "@routerd/gobgp-api/gen/gobgp";
import { renderExport, renderImport } from "./policy.js";

describe("per-neighbor policies", () => {
  it("imports nothing special when nothing is asked", () => {
    expect(renderImport("isp", "192.0.2.2", {})).toBeUndefined();
    expect(renderExport("isp", "192.0.2.2", {})).toBeUndefined();
  });

  it("rejects forbidden communities, then paths outside the allowed prefixes per family, then sets local preference and communities", () => {
    const r = renderImport("isp", "192.0.2.2", {
      import: { allowedPrefixes: ["10.0.0.0/8"], allowedPrefixLengthMax: 24, forbiddenCommunities: ["65000:666"], localPreference: 200 },
      communities: { set: { in: ["65001:1"] } },
    })!;
    const names = r.policy.statements.map((s) => s.name.replace(/^rd-in-isp-[0-9a-f]+-/, ""));
    expect(names).toEqual(["forbidden", "prefixes4", "prefixes6", "accept-all"]);
    // Every statement is about this neighbor only.
    for (const s of r.policy.statements) expect(s.conditions?.neighborSet?.name).toBe(`${r.policy.name}-nbr`);
    expect(r.sets.find((s) => s.name.endsWith("-nbr"))?.list).toEqual(["192.0.2.2/32"]);
    expect(r.sets.find((s) => s.name.endsWith("-prefixes4"))?.prefixes).toEqual([{ ipPrefix: "10.0.0.0/8", maskLengthMin: 8, maskLengthMax: 24 }]);
    // No IPv6 prefix allowed: IPv6 is rejected whole.
    expect(r.policy.statements[2]!.conditions?.prefixSet).toBeUndefined();
    expect(r.policy.statements[2]!.actions?.routeAction).toBe(RouteAction.REJECT);
    expect(r.policy.statements[1]!.conditions?.prefixSet?.type).toBe(MatchSet_Type.INVERT);
    const last = r.policy.statements.at(-1)!.actions!;
    expect(last.localPref?.value).toBe(200);
    expect(last.community?.communities).toEqual(["65001:1"]);
    expect(r.sets.find((s) => s.name.endsWith("-forbidden"))?.list).toEqual(["^65000:666$"]);
  });

  it("names are content-addressed: a change is a new policy, the same content the same name", () => {
    const a = renderImport("isp", "192.0.2.2", { import: { localPreference: 100 } })!.policy.name;
    expect(renderImport("isp", "192.0.2.2", { import: { localPreference: 100 } })!.policy.name).toBe(a);
    expect(renderImport("isp", "192.0.2.2", { import: { localPreference: 110 } })!.policy.name).not.toBe(a);
    expect(renderImport("isp", "192.0.2.3", { import: { localPreference: 100 } })!.policy.name).not.toBe(a);
  });

  it("rewrites the next hop to the neighbor's own address", () => {
    const r = renderImport("isp", "2001:db8::2", { import: { nextHopRewrite: "peer-address" } })!;
    expect(r.policy.statements.at(-1)!.actions!.nexthop?.address).toBe("2001:db8::2");
    expect(r.sets[0]!.list).toEqual(["2001:db8::2/128"]);
  });
});
