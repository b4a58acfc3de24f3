// ICMP echo probe. Node has no raw or ICMP datagram sockets, so each attempt runs iputils `ping` once:
//   ping -n -c 1 -W <timeout s> [-I <ifname>] [-I <source>] [-m <fwmark>] [-4|-6] <target>
// iputils takes -I twice (interface and source together). Exit 0: a reply (latency from "time="), 1: no
// reply (or an ICMP error, read from the output), 2: it could not send (the reason from stderr).
// Cost, measured by bench/healthcheck/rss.mjs: one fork+exec per attempt, about 1.5 ms of daemon CPU
// plus 2-3 ms in ping itself.
import { spawn } from "node:child_process";
import { isIP } from "node:net";
import type { ProbeConfig } from "../config.js";
import { failureFromError, timeoutOutcome, type FailureReason, type ProbeFn, type ProbeOutcome } from "./outcome.js";

const MAX_OUTPUT = 4096;

export function pingArgs(probe: ProbeConfig): string[] {
  const seconds = (Math.max(probe.timeoutMs, 1) / 1000).toFixed(3);
  const family = isIP(probe.target) || (probe.sourceAddress !== undefined ? isIP(probe.sourceAddress) : 0);
  return [
    "-n",
    "-c",
    "1",
    "-W",
    seconds,
    ...(probe.interface !== undefined ? ["-I", probe.interface] : []),
    ...(probe.sourceAddress !== undefined ? ["-I", probe.sourceAddress] : []),
    ...(probe.fwmark !== undefined ? ["-m", String(probe.fwmark)] : []),
    ...(family === 6 ? ["-6"] : family === 4 ? ["-4"] : []),
    probe.target,
  ];
}

/** What ping printed, in order of precedence. */
const OUTPUT_REASONS: [RegExp, FailureReason][] = [
  [/Destination Host Unreachable|Destination unreachable: Address unreachable/i, "HostUnreachable"],
  [/Destination Net Unreachable|Network is unreachable|Destination unreachable: No route/i, "NetworkUnreachable"],
  [/Packet filtered|Communication prohibited|Administratively prohibited|Destination Port Unreachable/i, "HostUnreachable"],
  [/No such device|SO_BINDTODEVICE/i, "InterfaceNotFound"],
  [/Name or service not known|Temporary failure in name resolution|unknown host|No address associated/i, "NameResolutionFailed"],
  [/Cannot assign requested address/i, "SourceUnavailable"],
  [/Operation not permitted|Permission denied|socket: /i, "LocalError"],
];

function lastLine(text: string): string {
  return text.trim().split("\n").filter(Boolean).at(-1) ?? "";
}

/** Pure: the outcome of one `ping -c 1` from its exit code and output. */
export function parsePing(code: number | null, stdout: string, stderr: string, timeoutMs: number): ProbeOutcome {
  const time = /time[=<]([\d.]+) ?ms/.exec(stdout)?.[1];
  if (code === 0 && time !== undefined) return { ok: true, latencyMs: Number(time) };
  const text = `${stdout}\n${stderr}`;
  const reason = OUTPUT_REASONS.find(([re]) => re.test(text))?.[1];
  if (code === 1 && reason === undefined) return timeoutOutcome(timeoutMs);
  const message = lastLine(stderr) || lastLine(stdout.split("\n---")[0] ?? "") || `ping exited with ${code}`;
  return { ok: false, reason: reason ?? "NetworkError", error: message.replace(/^ping: /, "") };
}

export interface IcmpProbeOptions {
  /** The ping program; default "ping" from PATH. */
  command?: string;
  /** Arguments before ping's own, for a wrapper command (tests: ["netns", "exec", ns, "ping"] with command "ip"). */
  prefixArgs?: string[];
}

export function makeIcmpProbe(options: IcmpProbeOptions = {}): ProbeFn {
  const command = options.command ?? "ping";
  const prefix = options.prefixArgs ?? [];
  return (probe, signal) =>
    new Promise<ProbeOutcome>((resolve) => {
      if (signal.aborted) return resolve(timeoutOutcome(probe.timeoutMs));
      let stdout = "";
      let stderr = "";
      let settled = false;
      const settle = (outcome: ProbeOutcome): void => {
        if (settled) return;
        settled = true;
        signal.removeEventListener("abort", onAbort);
        resolve(outcome);
      };
      const child = spawn(command, [...prefix, ...pingArgs(probe)], {
        stdio: ["ignore", "pipe", "pipe"],
        // ping's messages are parsed: keep them in English.
        env: { PATH: process.env.PATH ?? "/usr/sbin:/usr/bin:/sbin:/bin", LC_ALL: "C" },
      });
      const onAbort = (): void => {
        child.kill("SIGKILL");
        settle(timeoutOutcome(probe.timeoutMs));
      };
      signal.addEventListener("abort", onAbort, { once: true });
      child.stdout.on("data", (b: Buffer) => {
        if (stdout.length < MAX_OUTPUT) stdout += b.toString();
      });
      child.stderr.on("data", (b: Buffer) => {
        if (stderr.length < MAX_OUTPUT) stderr += b.toString();
      });
      child.on("error", (err: NodeJS.ErrnoException) => {
        const failure = failureFromError(err);
        settle(err.code === "ENOENT" ? { ...failure, reason: "LocalError", error: `${command} not found: install iputils-ping` } : failure);
      });
      child.on("close", (code) => settle(parsePing(code, stdout, stderr, probe.timeoutMs)));
    });
}

export const icmpProbe: ProbeFn = makeIcmpProbe();
