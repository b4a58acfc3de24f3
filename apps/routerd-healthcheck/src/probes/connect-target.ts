// The first steps every TCP-based probe shares: resolve the target, resolve the uplink binding, connect.
import type { Socket } from "node:net";
import { effectivePort, type ProbeConfig } from "../config.js";
import { resolveTarget } from "../net/resolve.js";
import { resolveSocketOptions } from "../net/socket-options.js";
import { connectTcp } from "../net/tcp-connect.js";

export async function connectProbeTarget(probe: ProbeConfig, signal: AbortSignal): Promise<Socket> {
  const port = effectivePort(probe);
  if (port === undefined) throw new Error(`${probe.type} probe without a port`);
  const target = await resolveTarget(probe.target, probe.sourceAddress, signal);
  const socketOptions = await resolveSocketOptions(probe);
  return connectTcp({ ...target, port }, { sourceAddress: probe.sourceAddress, socketOptions }, signal);
}
