import { describe, expect, it } from "vitest";
import { createArpingProber, interpretArping } from "./arp-probe.js";

describe("arping -D result", () => {
  it("reads replies as a conflict whatever the exit code, a clean exit as free, anything else as unknown", () => {
    expect(interpretArping(1, "ARPING 192.0.2.9 from 0.0.0.0 eth0\nUnicast reply from 192.0.2.9 [02:00:00:00:00:01] 0.6ms\n")).toBe("in-use");
    expect(interpretArping(0, "ARPING 192.0.2.9 from 0.0.0.0 eth0\nSent 2 probe(s)\n")).toBe("free");
    expect(interpretArping(1, "")).toBe("unknown");
    expect(interpretArping(null, "")).toBe("unknown");
  });

  it("reports unknown, with a note, when no arping command exists", async () => {
    const notes: string[] = [];
    const prober = createArpingProber({ ifname: "eth0", commands: [["/nonexistent/arping"]], onNote: (n) => notes.push(n) });
    expect(await prober.probe("192.0.2.9")).toBe("unknown");
    expect(notes).toEqual(["no arping command found (install iputils-arping or busybox)"]);
  });
});
