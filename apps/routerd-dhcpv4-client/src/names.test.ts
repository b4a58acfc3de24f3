import { DHCPV4_CLIENT_DAEMON } from "@routerd/api";
import { daemonSocketPath, daemonStateDir, isValidDaemonName } from "@routerd/rpc";
import { expect, it } from "vitest";
import { DAEMON_NAME, isInstanceName, socketPathOf, stateDirOf } from "./names.js";

it("serves where routerd looks for it", () => {
  expect(DAEMON_NAME).toBe(DHCPV4_CLIENT_DAEMON);
  expect(socketPathOf("/tmp/run", "wan")).toBe(daemonSocketPath("/tmp/run", DHCPV4_CLIENT_DAEMON, "wan"));
  expect(stateDirOf("/tmp/state", "wan")).toBe(daemonStateDir("/tmp/state", DHCPV4_CLIENT_DAEMON, "wan"));
});

it("accepts the same instance names as the daemon kit", () => {
  for (const name of ["wan", "wan-1", "isp_2.b", "a@b", "", ".", "..", "-x", "a/b", "x".repeat(65), "x".repeat(64)]) {
    expect(isInstanceName(name), name).toBe(isValidDaemonName(name));
  }
});
