// Pure comparison of desired and observed attributes, per artifact kind. Only what routerd asks for is
// compared: a route routerd wants "via 10.0.0.1" does not drift because the kernel also reports its device.
import { stableJson, type ArtifactKind, type Attributes } from "@routerd/resource";

export interface Difference {
  field: string;
  desired: unknown;
  observed: unknown;
}

type Comparator = (desired: Attributes, observed: Attributes, recorded?: Attributes) => Difference[];

const compareKeys =
  (...ignored: string[]): Comparator =>
  (desired, observed) =>
    Object.keys(desired)
      .filter((k) => !ignored.includes(k) && stableJson(desired[k]) !== stableJson(observed[k]))
      .map((field) => ({ field, desired: desired[field], observed: observed[field] }));

const COMPARATORS: Partial<Record<ArtifactKind, Comparator>> = {
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
  "routerd.daemon": () => [],
  "routerd.lease": () => [],
  "linux.ipv4.routeTable": () => [],
  "systemd.service": compareKeys("unit"),
  // `validate` names the check run before writing; it is not part of the file.
  file: compareKeys("validate"),
};

export function driftOf(kind: ArtifactKind, desired: Attributes, observed: Attributes, recorded?: Attributes): Difference[] {
  return (COMPARATORS[kind] ?? compareKeys())(desired, observed, recorded);
}
