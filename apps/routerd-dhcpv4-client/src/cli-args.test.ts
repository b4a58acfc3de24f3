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
      stateDir: "/tmp/x",
      client: {
        interface: "wan0",
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

  it("takes the daemon form with --instance, with routerd's default directories", () => {
    const r = parseCliArgs(["--instance", "wan", "--interface", "eth0"]);
    if (!r.ok) throw new Error(r.error);
    expect(r.config).toEqual({
      stateDir: "/var/lib/routerd",
      daemon: { instance: "wan", runDir: "/run/routerd" },
      json: false,
      logLevel: "info",
      client: { interface: "eth0", releaseOnStop: true, arpCheck: false },
    });
    const full = parseCliArgs(["--instance", "isp-1", "--interface", "eth0", "--run-dir", "/tmp/r", "--state-dir", "/tmp/s", "--no-release"]);
    expect(full.ok && full.config).toMatchObject({ stateDir: "/tmp/s", daemon: { instance: "isp-1", runDir: "/tmp/r" }, client: { releaseOnStop: false } });
  });

  it.each([
    [["--instance", "../x", "--interface", "a"], "--instance must be 1-64 characters from A-Z a-z 0-9 _ . @ - starting with a letter or digit"],
    [["--instance", "w", "--interface", "a", "--json"], "--json is for the standalone form; the daemon form reports over its socket"],
    [["--interface", "a", "--state-dir", "/x", "--run-dir", "/r"], "--run-dir needs --instance (the daemon form)"],
  ])("rejects %j in the daemon form", (argv, error) => {
    expect(parseCliArgs(argv)).toEqual({ ok: false, error });
  });

  it("rejects unknown flags and positionals", () => {
    expect(parseCliArgs(["--interface", "a", "--state-dir", "/x", "--apply"]).ok).toBe(false);
    expect(parseCliArgs(["--interface", "a", "--state-dir", "/x", "extra"]).ok).toBe(false);
  });
});
