import { describe, expect, it } from "vitest";
import { announcedPath, originatedPath } from "./codec.js";
import { changesOf } from "./watch.js";

const learned = (prefix: string, nh: string, neighbor: string) => ({ ...announcedPath(prefix, nh, [65000]), neighborIp: neighbor, best: true });

describe("best-path events → FIB changes", () => {
  it("groups equal-cost paths of a prefix into one ECMP next-hop set", () => {
    const changes = changesOf({
      paths: [learned("10.0.0.0/24", "192.0.2.3", "192.0.2.3"), learned("10.0.0.0/24", "192.0.2.2", "192.0.2.2"), learned("2001:db8::/32", "fd00::2", "fd00::2")],
    });
    expect(changes).toEqual([
      { prefix: "10.0.0.0/24", hops: "192.0.2.2,192.0.2.3" },
      { prefix: "2001:db8::/32", hops: "fd00::2" },
    ]);
  });

  it("a withdrawal, or a prefix won by a locally originated path, leaves nothing to install", () => {
    const withdrawn = { ...learned("10.0.1.0/24", "192.0.2.2", "192.0.2.2"), isWithdraw: true };
    const local = { ...originatedPath("10.0.2.0/24"), best: true };
    expect(changesOf({ paths: [withdrawn, local] })).toEqual([
      { prefix: "10.0.1.0/24", hops: "" },
      { prefix: "10.0.2.0/24", hops: "" },
    ]);
  });
});
