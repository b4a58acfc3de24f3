// TCP probe: success is a completed three-way handshake; latency is the time to connect.
import { connectProbeTarget } from "./connect-target.js";
import { elapsedMs, failureFromError, timeoutOutcome, type ProbeFn } from "./outcome.js";

export const tcpProbe: ProbeFn = async (probe, signal) => {
  const start = process.hrtime.bigint();
  try {
    const socket = await connectProbeTarget(probe, signal);
    const latencyMs = elapsedMs(start);
    socket.destroy();
    return { ok: true, latencyMs };
  } catch (err) {
    return signal.aborted ? timeoutOutcome(probe.timeoutMs) : failureFromError(err, elapsedMs(start));
  }
};
