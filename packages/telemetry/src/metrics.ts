// Counters every process keeps for the Prometheus endpoint: events by topic and severity, and each sink's
// records sent, dropped and buffered.
import type { MetricFamily } from "./encode/prometheus.js";
import type { Pipeline } from "./pipeline.js";

/** Counts events by (topic, severity); topics come from code, so the label set stays small. */
export class EventCounter {
  private readonly counts = new Map<string, number>();

  count(e: { topic: string; severity: string }): void {
    const key = `${e.topic}\u0000${e.severity}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  family(source: { daemon: string; instance: string }): MetricFamily {
    return {
      name: "routerd_events_total",
      help: "Events emitted, by topic and severity.",
      type: "counter",
      samples: [...this.counts].map(([key, value]) => {
        const [topic, severity] = key.split("\u0000") as [string, string];
        return { labels: { daemon: source.daemon, instance: source.instance, topic, severity }, value };
      }),
    };
  }
}

/** routerd_events_total and the sinks' counters of one process's pipeline. */
export function pipelineFamilies(pipeline: Pipeline): MetricFamily[] {
  const stats = pipeline.stats();
  const labels = (s: (typeof stats)[number]) => ({ pipeline: s.pipeline, sink: s.name, type: s.type });
  return [
    pipeline.events.family(pipeline.source),
    {
      name: "routerd_telemetry_records_total",
      help: "Records a sink accepted, by outcome (sent, dropped).",
      type: "counter",
      samples: stats.flatMap((s) => [
        { labels: { ...labels(s), outcome: "sent" }, value: s.sent },
        { labels: { ...labels(s), outcome: "dropped" }, value: s.dropped },
      ]),
    },
    { name: "routerd_telemetry_buffered", help: "Records waiting in a sink's queue.", type: "gauge", samples: stats.map((s) => ({ labels: labels(s), value: s.buffered })) },
    { name: "routerd_telemetry_send_failures_total", help: "Batches a sink failed to send.", type: "counter", samples: stats.map((s) => ({ labels: labels(s), value: s.failedSends })) },
  ];
}
