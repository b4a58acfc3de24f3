// One error type for everything that stops a daemon from starting; the message says what to do next.

export type DaemonStartErrorCode =
  | "INVALID_OPTIONS"
  | "ALREADY_RUNNING"
  | "NOT_A_SOCKET"
  | "SOCKET_PATH_TOO_LONG"
  | "SOCKET_GROUP_UNKNOWN"
  | "BIND_FAILED";

// Whether trying again later can succeed without the operator changing anything.
const RETRYABLE: Record<DaemonStartErrorCode, boolean> = {
  INVALID_OPTIONS: false,
  ALREADY_RUNNING: true,
  NOT_A_SOCKET: false,
  SOCKET_PATH_TOO_LONG: false,
  SOCKET_GROUP_UNKNOWN: false,
  BIND_FAILED: true,
};

export class DaemonStartError extends Error {
  readonly retryable: boolean;

  constructor(
    readonly code: DaemonStartErrorCode,
    message: string,
    readonly socketPath?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "DaemonStartError";
    this.retryable = RETRYABLE[code];
  }
}
