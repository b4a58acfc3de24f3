import { describe, expect, it } from "vitest";
import { parseCliArgs } from "./cli-args.js";

describe("command line", () => {
  it("parses every option into client options", () => {
    const r = parseCliArgs([
      "--interface", "wan0", "--state-dir", "/tmp/x", "--hostname", "cpe", "--client-id", "01:02:03",
      "--vendor-class", "routerd", "--requested-address", "192.0.2.5", "--no-release", "--json", "--arp-check",
      "--retransmit-base-ms", "250", "--retransmit-jitter-ms", "50", "--renew-retransmit-min-ms", "1000",
      "--request-attempts", "3", "--reboot-attempts", "1", "--log-level", "debug",
    ]);
    if (!r.ok) throw new Error(r.error);
    expect(r.config).toEqual({
      json: true,
      logLevel: "debug",
      client: {
        interface: "wan0",
        stateDir: "/tmp/x",
        hostname: "cpe",
        clientId: "01:02:03",
        vendorClass: "routerd",
        requestedAddress: "192.0.2.5",
        releaseOnStop: false,
        arpCheck: true,
        retransmit: { baseMs: 250, jitterMs: 50 },
        renewRetransmitMinMs: 1000,
        requestAttempts: 3,
        rebootAttempts: 1,
      },
    });
  });

  it.each([
    [["--state-dir", "/x"], "--interface is required"],
    [["--interface", "a"], "--state-dir is required"],
    [["--interface", "a", "--state-dir", "/x", "--requested-address", "1.2.3"], "--requested-address must be an IPv4 address"],
    [["--interface", "a", "--state-dir", "/x", "--request-attempts", "3x"], "--request-attempts must be a non-negative integer"],
    [["--interface", "a", "--state-dir", "/x", "--retransmit-base-ms", "0"], "--retransmit-base-ms must be positive"],
    [["--interface", "a", "--state-dir", "/x", "--log-level", "loud"], "--log-level must be one of trace, debug, info, warn, error, fatal, silent"],
  ])("rejects %j", (argv, error) => {
    expect(parseCliArgs(argv)).toEqual({ ok: false, error });
  });

  it("rejects unknown flags and positionals", () => {
    expect(parseCliArgs(["--interface", "a", "--state-dir", "/x", "--apply"]).ok).toBe(false);
    expect(parseCliArgs(["--interface", "a", "--state-dir", "/x", "extra"]).ok).toBe(false);
  });
});
