// routerctl's text rendering of a status: resources with their live messages, then serve's details.
import { HealthStatus, Phase, type DaemonStatus } from "@routerd/rpc";
import { describe, expect, it } from "vitest";
import { statusToText } from "./format.js";

describe("statusToText", () => {
  it("lists the resources, when serve last reconciled and the daemons it supervises", () => {
    const s = {
      daemon: "routerd",
      instance: "core",
      pid: 10,
      phase: Phase.PHASE_RUNNING,
      health: HealthStatus.HEALTH_STATUS_SERVING,
      conditions: [],
      resources: [
        { name: "DHCPv4Client/isp1", kind: "DHCPv4Client", phase: "Ready", message: "198.51.100.7/24 via 198.51.100.1", conditions: [], detailsJson: "" },
        { name: "Interface/lan", kind: "Interface", phase: "Ready", message: "", conditions: [], detailsJson: "" },
      ],
      detailsJson: JSON.stringify({ lastReconcile: "2030-01-01T00:00:00.000Z", ok: true, daemons: [{ daemon: "dhcpv4-client", instance: "isp1", pid: 11, restarts: 0 }, { daemon: "healthcheck", instance: "default", restarts: 2 }] }),
    } as unknown as DaemonStatus;
    expect(statusToText(s).split("\n")).toEqual([
      "routerd/core  pid 10  RUNNING  SERVING",
      "  DHCPv4Client/isp1  Ready      198.51.100.7/24 via 198.51.100.1",
      "  Interface/lan      Ready",
      "  last reconcile 2030-01-01T00:00:00.000Z",
      "  daemons (2):",
      "    dhcpv4-client/isp1           pid 11",
      "    healthcheck/default          not running, 2 restarts",
    ]);
  });
});
