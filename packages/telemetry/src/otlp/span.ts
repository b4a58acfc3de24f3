// A finished operation as a trace: a root span and its child spans, as plain data (no SDK here), so it can
// wait in the bounded otlp-traces queue until the OpenTelemetry SDK is loaded. serve's reconciles
// (reconcile-trace.ts) and the daemons' operations (a DHCP lease transaction, a health transition, a FIB
// batch, a reload) both end up as one.

export type SpanAttributes = Record<string, string | number | boolean>;

export interface PhaseSpan {
  name: string;
  /** Epoch milliseconds (fractional). */
  start: number;
  end: number;
}

export interface SpanRecord {
  name: string;
  start: number;
  end: number;
  attributes: SpanAttributes;
  /** Set when the operation failed: the span's status is ERROR with this message. */
  error?: string;
  children: PhaseSpan[];
}

/** Child spans kept per operation (the rest of a runaway one is left out). */
export const MAX_CHILDREN = 64;

/**
 * Times one operation: step() closes a child span from the previous step (or the start) to now; finish()
 * gives the span to hand to the daemon's `trace` (a no-op unless OTLP traces are configured).
 */
export class Operation {
  readonly start: number;
  private last: number;
  private readonly children: PhaseSpan[] = [];

  constructor(
    readonly name: string,
    private readonly attributes: SpanAttributes = {},
    private readonly now: () => number = Date.now,
    start?: number,
  ) {
    this.start = start ?? now();
    this.last = this.start;
  }

  step(name: string): void {
    const at = this.now();
    if (this.children.length < MAX_CHILDREN) this.children.push({ name, start: this.last, end: at });
    this.last = at;
  }

  finish(attributes: SpanAttributes = {}, error?: string): SpanRecord {
    return { name: this.name, start: this.start, end: Math.max(this.start, this.now()), attributes: { ...this.attributes, ...attributes }, ...(error ? { error } : {}), children: [...this.children] };
  }
}
