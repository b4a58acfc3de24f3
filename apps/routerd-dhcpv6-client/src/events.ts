// What the client tells its owner. One object per change; main.ts prints each as a JSON line.
import type { Information, Lease } from "./lease.js";

export type ClientEvent =
  /** First binding after start, after a loss or after a release. */
  | { type: "acquired"; lease: Lease }
  /** Same prefixes/addresses, lifetimes extended. `via` says which exchange did it. */
  | { type: "renewed"; via: "renew" | "rebind" | "request"; lease: Lease }
  /** The set of prefixes/addresses changed (new ones added, old ones removed with lifetime 0 or expired). */
  | { type: "changed"; added: string[]; removed: string[]; lease: Lease }
  /** The server withdrew every lease (valid lifetime 0). */
  | { type: "lost"; reason: string; removed: string[] }
  /** The valid lifetimes ran out without a successful Renew/Rebind. */
  | { type: "expired"; removed: string[] }
  /** The client gave its leases back (or stopped using them if the server did not answer). */
  | { type: "released"; removed: string[] }
  /** DNS servers, search list, AFTR name or SNTP servers were learned or changed. */
  | { type: "information"; information: Information };

export type ClientEventType = ClientEvent["type"];
