import pino from "pino";
import { describe, expect, it } from "vitest";
import { openFibWriter, type FibWriter, type WriterTable } from "./writer.js";

const fake = (kind: FibWriter["kind"]): FibWriter => ({ kind, draining: false, flushesInBulk: false, chunk: () => ({}) as never, close: () => undefined });

function table(netlink: string | undefined): { table: WriterTable; opened: string[] } {
  const opened: string[] = [];
  return {
    opened,
    table: {
      netlink: () => (opened.push("netlink"), netlink === undefined ? { writer: fake("netlink") } : { reason: netlink }),
      ip: () => (opened.push("ip"), { writer: fake("ip") }),
    },
  };
}

describe("choosing the FIB writer", () => {
  const logger = pino({ level: "silent" });

  it("takes netlink first, ip when the addon cannot be used, and what ROUTERD_BGP_FIB_WRITER names", () => {
    const a = table(undefined);
    expect(openFibWriter(a.table, logger, {}).kind).toBe("netlink");
    expect(a.opened).toEqual(["netlink"]); // ip -batch is never started for nothing
    const b = table("netlink-route.node is not built");
    expect(openFibWriter(b.table, logger, {}).kind).toBe("ip");
    const c = table(undefined);
    expect(openFibWriter(c.table, logger, { ROUTERD_BGP_FIB_WRITER: "ip" }).kind).toBe("ip");
    expect(c.opened).toEqual(["ip"]);
    expect(openFibWriter(table("no addon").table, logger, { ROUTERD_BGP_FIB_WRITER: "netlink" }).kind).toBe("ip");
    expect(openFibWriter(table(undefined).table, logger, { ROUTERD_BGP_FIB_WRITER: "zebra" }).kind).toBe("netlink");
  });

  it("logs which writer it took and why not the preferred one", () => {
    const lines: { writer?: string; instead?: string }[] = [];
    const log = pino({ level: "info" }, { write: (l: string) => void lines.push(JSON.parse(l)) });
    openFibWriter(table("not built").table, log, {});
    expect(lines.at(-1)).toMatchObject({ writer: "ip", instead: "netlink: not built" });
  });
});
