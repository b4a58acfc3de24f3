import { HEALTHCHECK_DAEMON } from "@routerd/api";
import { expect, it } from "vitest";
import { DAEMON_NAME, DEFAULT_INSTANCE, healthcheckSocketPath } from "./names.js";

it("serves where routerd looks for it", () => {
  expect({ daemon: DAEMON_NAME, instance: DEFAULT_INSTANCE }).toEqual({ daemon: HEALTHCHECK_DAEMON.daemon, instance: HEALTHCHECK_DAEMON.instance });
  expect(healthcheckSocketPath("/tmp/run")).toBe("/tmp/run/healthcheck/default.sock");
});
