// Readiness for systemd Type=notify units. Node cannot send Unix datagrams, so we run systemd-notify(1)
// with --pid=<our pid>. The datagram then comes from a child process: units need NotifyAccess=all
// (or run as root, where the credentials naming our pid are accepted for NotifyAccess=main).
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

export type NotifyResult = "sent" | "skipped" | "failed";

export interface NotifyOptions {
  env?: NodeJS.ProcessEnv;
  pid?: number;
  onError?: (err: unknown) => void;
  timeoutMs?: number;
}

/** Sends `READY=1` plus `STATUS=<status>` when NOTIFY_SOCKET is set; never throws. */
export async function notifyReady(status: string, options: NotifyOptions = {}): Promise<NotifyResult> {
  const env = options.env ?? process.env;
  if (!env.NOTIFY_SOCKET) return "skipped";
  try {
    await run("systemd-notify", ["--ready", `--pid=${options.pid ?? process.pid}`, `--status=${status}`], {
      env,
      timeout: options.timeoutMs ?? 5_000,
    });
    return "sent";
  } catch (err) {
    options.onError?.(err);
    return "failed";
  }
}
