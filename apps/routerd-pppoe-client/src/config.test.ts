import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, parseSessionConfig, readPassword } from "./config.js";

const valid = {
  interface: "wan0",
  ifname: "ppp0",
  username: "u",
  password: "p",
  authMethod: "chap",
  ipv6: false,
  usePeerDNS: true,
  lcpEchoInterval: 10,
  lcpEchoFailure: 3,
  persist: true,
};

function problems(value: unknown): string[] {
  try {
    parseSessionConfig(value);
    return [];
  } catch (err) {
    return (err as ConfigError).problems;
  }
}

describe("session config", () => {
  it("accepts a complete config", () => expect(parseSessionConfig(valid)).toEqual(valid));

  it("collects every problem, unknown fields included", () => {
    expect(problems({ ...valid, authMethod: "eap", mtu: 9000, bogus: 1, ifname: "a-name-longer-than-15" })).toEqual([
      expect.stringMatching(/^bogus: unknown field/),
      "ifname: must be a Linux interface name (up to 15 characters)",
      "authMethod: must be one of chap, pap, both",
      "mtu: must be an integer from 576 to 1500",
    ]);
  });

  it("wants exactly one of password and passwordFile", () => {
    expect(problems({ ...valid, passwordFile: "/run/pw" })).toEqual(["password, passwordFile: give exactly one of them"]);
    const { password: _, ...without } = valid;
    expect(problems(without)).toEqual(["password, passwordFile: give exactly one of them"]);
  });

  it("refuses control characters pppd's files cannot hold", () => {
    expect(problems({ ...valid, username: "a\nb" })).toEqual(["username: must be 1 to 255 printable characters"]);
  });

  it("reads the password file's first line at every dial", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pppoe-pw-"));
    try {
      const path = join(dir, "pw");
      const { password: _, ...rest } = valid;
      const config = parseSessionConfig({ ...rest, passwordFile: path });
      writeFileSync(path, "first\nignored\n");
      expect(await readPassword(config)).toBe("first");
      writeFileSync(path, "rotated\n");
      expect(await readPassword(config)).toBe("rotated");
      writeFileSync(path, "\n");
      await expect(readPassword(config)).rejects.toThrow(/first line must hold the password/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
