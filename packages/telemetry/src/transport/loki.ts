// Loki's push API over HTTP(S): one POST per batch, tenant as X-Scope-OrgID.
import { encodeLokiPush, LOKI_PUSH_PATH } from "../encode/loki.js";
import type { TelemetryRecord } from "../record.js";
import type { Transport } from "./transport.js";

export interface LokiTarget {
  url: string;
  tenant?: string;
  headers: Record<string, string>;
}

export function lokiPushUrl(base: string): string {
  return base.replace(/\/+$/, "").endsWith(LOKI_PUSH_PATH) ? base : `${base.replace(/\/+$/, "")}${LOKI_PUSH_PATH}`;
}

export function lokiTransport(target: LokiTarget, labels: Record<string, string>, attributes: Record<string, string>): Transport {
  const url = lokiPushUrl(target.url);
  const headers = { ...target.headers, "content-type": "application/json", ...(target.tenant ? { "x-scope-orgid": target.tenant } : {}) };
  return {
    async send(records: readonly TelemetryRecord[], timeoutMs: number) {
      const res = await fetch(url, { method: "POST", headers, body: encodeLokiPush(records, labels, attributes), signal: AbortSignal.timeout(timeoutMs) });
      if (!res.ok) throw new Error(`loki answered ${res.status}: ${(await res.text().catch(() => "")).slice(0, 200)}`);
      await res.arrayBuffer().catch(() => undefined);
    },
    close: () => undefined,
  };
}
