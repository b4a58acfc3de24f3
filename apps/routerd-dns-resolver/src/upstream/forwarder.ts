// Forwarding: the rule whose match suffix is longest picks the upstreams; they are asked best-ranked
// first, and when one is slow past its hedge time (or fails) the next is asked too, the first good answer
// winning. SERVFAIL and REFUSED move on to the next upstream. Everything ends by the deadline, so a client
// gets SERVFAIL in bounded time when no upstream answers.
import type { ForwarderConfig } from "../config/config.js";
import { RCODE } from "../wire/constants.js";
import type { Message } from "../wire/message.js";
import { nameFromText, suffixKeys, nameKey, type Name } from "../wire/name.js";
import type { UpstreamQuestion } from "./question.js";
import { UpstreamError } from "./transport.js";
import type { Upstream } from "./upstream.js";

export interface ForwardRule {
  config: ForwarderConfig;
  upstreams: Upstream[];
}

/** Longest-suffix match of every rule's `match` names. */
export class Routes {
  private readonly bySuffix = new Map<string, ForwardRule>();

  constructor(rules: readonly ForwardRule[]) {
    for (const rule of rules) {
      for (const m of rule.config.match) {
        const key = nameKey(nameFromText(m));
        // The first rule naming a suffix wins; the config checker warns about duplicates.
        if (!this.bySuffix.has(key)) this.bySuffix.set(key, rule);
      }
    }
  }

  route(name: Name): ForwardRule | undefined {
    for (const key of suffixKeys(name)) {
      const rule = this.bySuffix.get(key);
      if (rule !== undefined) return rule;
    }
    return undefined;
  }
}

export interface Forwarded {
  msg: Message;
  upstream: Upstream;
}

/** Overall time an upstream exchange may take: a client gets its SERVFAIL well within 2 s. */
export const FORWARD_DEADLINE_MS = 1800;

/**
 * Asks the upstreams (best first, hedged); resolves with the first usable answer. One upstream's attempt
 * ends after `attemptMs` (the forwarder's health-check timeout) and counts as its failure.
 */
export function forward(upstreams: readonly Upstream[], q: UpstreamQuestion, attemptMs = 1000, deadlineMs = FORWARD_DEADLINE_MS): Promise<Forwarded> {
  const ranked = [...upstreams].sort((a, b) => a.health.rank() - b.health.rank());
  return new Promise<Forwarded>((resolve, reject) => {
    const started = Date.now();
    let next = 0;
    let outstanding = 0;
    let done = false;
    let fallback: Forwarded | undefined;
    // Made only when needed: an Error captures a stack trace, too dear for every forwarded question.
    let lastError: Error | undefined;
    const hedges: NodeJS.Timeout[] = [];
    const finish = (ok: Forwarded | undefined): void => {
      if (done) return;
      done = true;
      clearTimeout(overall);
      for (const h of hedges) clearTimeout(h);
      if (ok !== undefined) resolve(ok);
      else if (fallback !== undefined) resolve(fallback);
      else reject(lastError ?? new UpstreamError("network", "no upstreams"));
    };
    const settleOne = (): void => {
      outstanding--;
      if (next < ranked.length) launch();
      else if (outstanding === 0) finish(undefined);
    };
    const launch = (): void => {
      if (done || next >= ranked.length) return;
      const u = ranked[next++]!;
      outstanding++;
      const remaining = deadlineMs - (Date.now() - started);
      if (next < ranked.length) hedges.push(setTimeout(launch, u.health.hedgeAfterMs()));
      u.query(q, Math.max(1, Math.min(remaining, attemptMs))).then(
        (msg) => {
          if (msg.rcode === RCODE.SERVFAIL || msg.rcode === RCODE.REFUSED) {
            // Passed on only if nobody does better.
            fallback ??= { msg, upstream: u };
            settleOne();
          } else {
            finish({ msg, upstream: u });
          }
        },
        (err: Error) => {
          lastError = err;
          settleOne();
        },
      );
    };
    const overall = setTimeout(() => {
      lastError = new UpstreamError("timeout", `no upstream answered within ${deadlineMs} ms`);
      finish(undefined);
    }, deadlineMs);
    if (ranked.length === 0) finish(undefined);
    else launch();
  });
}
