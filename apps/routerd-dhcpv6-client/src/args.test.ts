import { describe, expect, it } from "vitest";
import { parseCliArgs, parsePrefix } from "./args.js";

describe("command line", () => {
  it("--help and -h ask for the usage, whatever else is given", () => {
    expect(parseCliArgs(["--help"])).toEqual({ ok: false, help: true });
    expect(parseCliArgs(["-h", "--interface", "wan0"])).toEqual({ ok: false, help: true });
  });

  it("accepts the documented options", () => {
    const r = parseCliArgs([
      "--interface", "wan0", "--state-dir", "/tmp/x", "--prefix-length", "56", "--ia-na", "--no-release", "--duid-type", "llt",
    ]);
    expect(r).toEqual({
      ok: true,
      options: {
        interface: "wan0",
        stateDir: "/tmp/x",
        prefixLength: 56,
        requestAddress: true,
        prefixDelegation: true,
        informationOnly: false,
        releaseOnStop: false,
        duidType: "llt",
        iaid: 1,
        rapidCommit: true,
        solicitMaxDelayMs: 0,
        releaseTimeoutMs: 5000,
        logLevel: "info",
      },
    });
  });

  it("normalises the hint to its network prefix", () => {
    const r = parseCliArgs(["--interface", "wan0", "--state-dir", "/s", "--hint", "2001:DB8:42:1::/56"]);
    expect(r.ok && r.options.hint).toEqual({ prefix: "2001:db8:42::", length: 56 });
  });

  it("reports every problem at once", () => {
    const r = parseCliArgs(["--prefix-length", "200", "--duid-type", "uuid", "--hint", "nope", "--log-level", "loud"]);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual([
      "--interface is required",
      "--state-dir is required (or --instance for the daemon form)",
      '--prefix-length must be an integer from 1 to 128, got "200"',
      '--hint must be PREFIX/LEN, got "nope"',
      '--duid-type must be ll, llt or en, got "uuid"',
      "--log-level must be one of trace, debug, info, warn, error, fatal, silent",
    ]);
  });

  it("rejects conflicting modes and unknown flags", () => {
    const conflict = parseCliArgs(["--interface", "w", "--state-dir", "/s", "--info-only", "--ia-na"]);
    expect(conflict.ok).toBe(false);
    const unknown = parseCliArgs(["--interface", "w", "--state-dir", "/s", "--bogus"]);
    expect(unknown.ok === false && unknown.errors[0]).toMatch(/Unknown option '--bogus'/);
    const hintLen = parseCliArgs(["--interface", "w", "--state-dir", "/s", "--hint", "2001:db8::/48", "--prefix-length", "56"]);
    expect(hintLen.ok === false && hintLen.errors).toEqual(["--hint length /48 conflicts with --prefix-length 56"]);
  });

  it("the daemon form: --instance, with /run/routerd and /var/lib/routerd unless given", () => {
    const d = parseCliArgs(["--instance", "isp", "--interface", "wan0"]);
    expect(d.ok && d.options.daemon).toEqual({ instance: "isp", runDir: "/run/routerd" });
    expect(d.ok && d.options.stateDir).toBe("/var/lib/routerd");
    const dirs = parseCliArgs(["--instance", "isp", "--interface", "wan0", "--run-dir", "/tmp/r", "--state-dir", "/tmp/s"]);
    expect(dirs.ok && [dirs.options.daemon?.runDir, dirs.options.stateDir]).toEqual(["/tmp/r", "/tmp/s"]);
    const standalone = parseCliArgs(["--interface", "wan0", "--state-dir", "/s"]);
    expect(standalone.ok && standalone.options.daemon).toBeUndefined();
    expect(parseCliArgs(["--interface", "wan0", "--state-dir", "/s", "--run-dir", "/r"])).toEqual({ ok: false, errors: ["--run-dir needs --instance (the daemon form)"] });
    const bad = parseCliArgs(["--instance", "../x", "--interface", "wan0"]);
    expect(bad.ok === false && bad.errors[0]).toMatch(/--instance "\.\.\/x" must be/);
  });

  it("parses prefixes", () => {
    expect(parsePrefix("2001:db8::/129")).toBeUndefined();
    expect(parsePrefix("2001:db8::")).toBeUndefined();
    expect(parsePrefix("::/0")).toEqual({ prefix: "::", length: 0 });
  });
});
