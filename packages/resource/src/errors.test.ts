import { describe, expect, it } from "vitest";
import { RouterdError, formatLocated } from "./errors.js";
import { knownKind, observe, unknownKind, type Inventory } from "./inventory.js";

describe("RouterdError", () => {
  it("carries code, location, retryability, hint and cause, and serialises them", () => {
    const cause = new Error("EACCES");
    const e = new RouterdError("LEDGER_LOCKED", "state is locked", {
      location: { file: "/etc/routerd/router.yaml", line: 3, column: 5, resource: "Interface/wan", field: "spec.mtu" },
      retryable: true,
      hint: "retry when the other routerd finishes",
      cause,
    });
    expect(e).toBeInstanceOf(Error);
    expect(e.cause).toBe(cause);
    expect(e.toJSON()).toEqual({
      code: "LEDGER_LOCKED",
      message: "state is locked",
      file: "/etc/routerd/router.yaml",
      line: 3,
      column: 5,
      resource: "Interface/wan",
      field: "spec.mtu",
      retryable: true,
      hint: "retry when the other routerd finishes",
      cause: "EACCES",
    });
  });

  it("defaults to not retryable, no location", () => {
    const e = new RouterdError("X", "m");
    expect([e.retryable, e.location, e.hint]).toEqual([false, {}, undefined]);
    expect(e.toJSON()).toEqual({ code: "X", message: "m", retryable: false });
  });
});

describe("formatLocated", () => {
  it.each([
    [{ file: "r.yaml", line: 3, column: 7, resource: "Interface/wan", field: "spec.mtu" }, "r.yaml:3:7: error: Interface/wan spec.mtu: bad (fix it)"],
    [{ file: "r.yaml" }, "r.yaml: error: bad (fix it)"],
    [{ resource: "Interface/wan" }, "error: Interface/wan: bad (fix it)"],
    [{}, "error: bad (fix it)"],
  ])("%j", (loc, expected) => {
    expect(formatLocated(loc, "error", "bad", "fix it")).toBe(expected);
  });
});

describe("observe", () => {
  const inv: Inventory = new Map([
    ["nft.table", knownKind([{ kind: "nft.table", name: "ip/routerd_nat", attributes: { handle: 1 } }])],
    ["linux.link", unknownKind("ip -j link failed")],
  ]);
  it.each([
    ["nft.table", "ip/routerd_nat", "present"],
    ["nft.table", "ip/routerd_gone", "absent"],
    ["linux.link", "wan0", "unknown"],
    ["linux.sysctl", "net.ipv4.ip_forward", "unknown"],
  ] as const)("%s %s is %s", (kind, name, state) => {
    expect(observe(inv, kind, name).state).toBe(state);
  });
  it("says why a kind is unknown", () => {
    expect(observe(inv, "linux.link", "x")).toEqual({ state: "unknown", reason: "ip -j link failed" });
    expect(observe(inv, "linux.sysctl", "x")).toEqual({ state: "unknown", reason: "linux.sysctl was not observed" });
  });
});
