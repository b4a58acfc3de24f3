// Loki's push API over HTTP(S): one POST per batch, tenant as X-Scope-OrgID. node:http rather than fetch:
// the daemons run with --jitless, and fetch's HTTP parser is WebAssembly.
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { encodeLokiPush, LOKI_PUSH_PATH } from "../encode/loki.js";
import type { TelemetryRecord } from "../record.js";
import type { Transport } from "./transport.js";

export interface LokiTarget {
  url: string;
  tenant?: string;
  headers: Record<string, string>;
}

export function lokiPushUrl(base: string): string {
  const trimmed = base.replace(/\/+$/, "");
  return trimmed.endsWith(LOKI_PUSH_PATH) ? trimmed : `${trimmed}${LOKI_PUSH_PATH}`;
}

/** POSTs `body`; resolves on a 2xx answer, rejects on anything else, an error or `timeoutMs`. */
function post(url: URL, headers: Record<string, string>, body: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = url.protocol === "https:" ? httpsRequest : httpRequest;
    const req = request(url, { method: "POST", headers: { ...headers, "content-length": Buffer.byteLength(body) }, timeout: timeoutMs }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => text.length < 200 && (text += c));
      res.on("end", () => {
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) resolve();
        else reject(new Error(`loki answered ${status}: ${text.trim().slice(0, 200)}`));
      });
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`loki did not answer within ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end(body);
  });
}

export function lokiTransport(target: LokiTarget, labels: Record<string, string>, attributes: Record<string, string>): Transport {
  const url = new URL(lokiPushUrl(target.url));
  const headers = { ...target.headers, "content-type": "application/json", ...(target.tenant ? { "x-scope-orgid": target.tenant } : {}) };
  return {
    send: (records: readonly TelemetryRecord[], timeoutMs: number) => post(url, headers, encodeLokiPush(records, labels, attributes), timeoutMs),
    close: () => undefined,
  };
}
