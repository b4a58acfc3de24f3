// One error type for everything an operator or a script may see: a code, where it happened, whether a
// retry can help, and what to do next.

export interface ErrorLocation {
  file?: string;
  line?: number;
  column?: number;
  /** `Kind/name` of the resource, when one is involved. */
  resource?: string;
  /** Field path inside the resource, e.g. `spec.candidates[0].gateway`. */
  field?: string;
}

export class RouterdError extends Error {
  readonly code: string;
  readonly location: ErrorLocation;
  readonly retryable: boolean;
  readonly hint?: string;

  constructor(
    code: string,
    message: string,
    options: { location?: ErrorLocation; retryable?: boolean; hint?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "RouterdError";
    this.code = code;
    this.location = options.location ?? {};
    this.retryable = options.retryable ?? false;
    if (options.hint !== undefined) this.hint = options.hint;
  }

  toJSON(): Record<string, unknown> {
    return {
      code: this.code,
      message: this.message,
      ...this.location,
      retryable: this.retryable,
      ...(this.hint ? { hint: this.hint } : {}),
      ...(this.cause instanceof Error ? { cause: this.cause.message } : {}),
    };
  }
}

/** `file:line:col: resource field: message (hint)`, the form editors and terminals understand. */
export function formatLocated(loc: ErrorLocation, severity: string, message: string, hint?: string): string {
  const where = [loc.file, loc.line, loc.column].filter((x) => x !== undefined).join(":");
  const subject = [loc.resource, loc.field].filter(Boolean).join(" ");
  return `${where ? `${where}: ` : ""}${severity}: ${subject ? `${subject}: ` : ""}${message}${hint ? ` (${hint})` : ""}`;
}
