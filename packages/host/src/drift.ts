// Pure comparison of desired and observed attributes, per artifact kind. Only what routerd asks for is
// compared: a route routerd wants "via 10.0.0.1" does not drift because the kernel also reports its device.
import { stableJson, type ArtifactKind, type Attributes } from "@routerd/resource";

export interface Difference {
  field: string;
  desired: unknown;
  observed: unknown;
}

type Comparator = (desired: Attributes, observed: Attributes, recorded?: Attributes) => Difference[];

/** Equal as JSON; scalars (nearly every attribute) are compared without serialising. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  return stableJson(a) === stableJson(b);
}

const compareKeys =
  (...ignored: string[]): Comparator =>
  (desired, observed) => {
    const out: Difference[] = [];
    for (const field in desired) {
      if (ignored.includes(field) || sameValue(desired[field], observed[field])) continue;
      out.push({ field, desired: desired[field], observed: observed[field] });
    }
    return out;
  };

/** Lifetimes count down on the host: an absolute time within this much of the desired one is the same. */
export const LIFETIME_TOLERANCE_MS = 5000;

/**
 * Times that have passed are all "now": a deprecated address (preferred lifetime 0) is what a preferred
 * time in the past asks for. The clock only clamps; it never makes two future times differ.
 */
const sameTime = (a: unknown, b: unknown, now: number) => {
  if (a === undefined || b === undefined) return a === b;
  const at = (x: unknown) => Math.max(Date.parse(String(x)), now);
  return Math.abs(at(a) - at(b)) <= LIFETIME_TOLERANCE_MS;
};

const COMPARATORS: Partial<Record<ArtifactKind, Comparator>> = {
  // An address routerd gave the lease's lifetimes: compared as absolute times, "forever" when absent.
  "linux.ipv6.address": (desired, observed, recorded) => [
    ...compareKeys("validUntil", "preferredUntil")(desired, observed, recorded),
    ...(["validUntil", "preferredUntil"] as const)
      .filter((k) => !sameTime(desired[k], observed[k], Date.now()))
      .map((field) => ({ field, desired: desired[field] ?? "forever", observed: observed[field] ?? "forever" })),
  ],
  // Tables: the digest routerd wrote, and whether someone changed the table since routerd recorded it.
  "nft.table": (desired, observed, recorded) => {
    const out: Difference[] = [];
    if (desired.contentDigest !== observed.contentDigest) {
      out.push({ field: "content", desired: desired.contentDigest, observed: observed.contentDigest ?? "(not written by routerd)" });
    } else if (recorded?.hostDigest !== undefined && recorded.hostDigest !== observed.hostDigest) {
      out.push({ field: "content", desired: "as rendered", observed: "changed outside routerd" });
    }
    return out;
  },
  "nft.set": compareKeys("family", "table", "set"),
  // Whether to announce the address is how it is added, not something the host shows.
  "linux.ipv4.address": compareKeys("gratuitousARP"),
  "routerd.daemon": () => [],
  "routerd.lease": () => [],
  "linux.ipv4.routeTable": () => [],
  "linux.route.protocol": () => [],
  "systemd.service": compareKeys("unit"),
  // `validate` names the check run before writing; it is not part of the file.
  file: compareKeys("validate"),
};

export function driftOf(kind: ArtifactKind, desired: Attributes, observed: Attributes, recorded?: Attributes): Difference[] {
  return (COMPARATORS[kind] ?? compareKeys())(desired, observed, recorded);
}
