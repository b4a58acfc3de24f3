import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { Pipeline } from "../pipeline.js";
import type { OtlpSettings } from "../settings.js";

/** A loopback port with nothing listening (bound, then closed). */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address() as { port: number };
  await new Promise((r) => srv.close(r));
  return port;
}

const otlp = (endpoint: string, signals: OtlpSettings["signals"] = ["logs", "metrics", "traces"]): OtlpSettings => ({ pipeline: "obs", endpoint, headers: {}, signals, samplingRate: 1 });

// The export itself (SDK loaded, OTLP/HTTP to a receiver, a dead collector's drops) is tested end to end in
// test-e2e/observability/otlp.test.ts: vitest's workers run with --conditions=module, which makes Node pick
// the OpenTelemetry packages' bundler-only ESM builds, so the SDK cannot load inside this tier.
describe("OTLP export", () => {
  it("exports only the configured signals, and nothing once otlp is removed", async () => {
    const p = new Pipeline({ daemon: "routerd", instance: "core" });
    p.configure({ sinks: [], metrics: false, attributes: {}, serviceNamespace: "routerd", otlp: otlp(`http://127.0.0.1:${await closedPort()}`, ["traces"]) });
    expect(p.active).toBe(false); // no log sink and no OTLP logs: events are only counted
    expect(p.stats().map((s) => s.name)).toEqual(["otlp-traces"]);
    p.configure({ sinks: [], metrics: false, attributes: {}, serviceNamespace: "routerd" });
    expect(p.stats()).toEqual([]);
    p.close();
  });
});
