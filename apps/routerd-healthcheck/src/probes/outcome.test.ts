import { describe, expect, it } from "vitest";
import { failureFromError, timeoutOutcome } from "./outcome.js";

const errno = (code: string, message = `${code} happened`): Error => Object.assign(new Error(message), { code });

describe("failureFromError", () => {
  const table: [string, string][] = [
    ["ECONNREFUSED", "ConnectionRefused"],
    ["ECONNRESET", "ConnectionReset"],
    ["EPIPE", "ConnectionReset"],
    ["EHOSTUNREACH", "HostUnreachable"],
    ["ENETUNREACH", "NetworkUnreachable"],
    ["ETIMEDOUT", "Timeout"],
    ["ENODEV", "InterfaceNotFound"],
    ["EADDRNOTAVAIL", "SourceUnavailable"],
    ["ENOTFOUND", "NameResolutionFailed"],
    ["EAI_AGAIN", "NameResolutionFailed"],
    ["EPERM", "LocalError"],
    ["HPE_INVALID_CONSTANT", "MalformedReply"],
    ["HPE_SOMETHING_NEW", "MalformedReply"],
    ["ERR_SSL_WRONG_VERSION_NUMBER", "TlsError"],
    ["EWHATEVER", "NetworkError"],
  ];
  for (const [code, reason] of table) {
    it(`maps ${code} to ${reason}`, () => {
      expect(failureFromError(errno(code), 3)).toEqual({ ok: false, reason, error: `${code} happened`, latencyMs: 3 });
    });
  }

  it("handles errors without a code and values that are not errors", () => {
    expect(failureFromError(new Error("boom"))).toEqual({ ok: false, reason: "NetworkError", error: "boom" });
    expect(failureFromError("text")).toEqual({ ok: false, reason: "NetworkError", error: "text" });
  });
});

it("timeoutOutcome says how long it waited", () => {
  expect(timeoutOutcome(750)).toEqual({ ok: false, reason: "Timeout", error: "no answer within 750 ms", latencyMs: 750 });
});
