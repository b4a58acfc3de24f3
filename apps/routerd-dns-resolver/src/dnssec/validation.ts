// What the resolver needs from DNSSEC validation (implemented in validator.ts): a verdict per forwarded
// answer. RFC 4035 §4.3: secure (chain of trust to an anchor), insecure (proven unsigned), bogus (should be
// signed but is not, or the signatures fail), indeterminate (no anchor covers it).
import type { Message } from "../wire/message.js";
import type { UpstreamQuestion } from "../upstream/question.js";

export type ValidationStatus = "secure" | "insecure" | "bogus" | "indeterminate";

export interface Validation {
  status: ValidationStatus;
  /** RFC 8914 code for a bogus answer. */
  ede?: number;
  reason?: string;
}

/** Fetches what validation needs (DNSKEY, DS) through the same upstreams. */
export type FetchRecords = (q: UpstreamQuestion) => Promise<Message>;

export interface AnswerValidator {
  validate(msg: Message, q: UpstreamQuestion, fetch: FetchRecords): Promise<Validation>;
}
