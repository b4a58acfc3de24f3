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

/**
 * A link: the scalar settings as asked; a created link's parameters key by key (the kernel reports many more);
 * a VRF's members as a set (a link enslaved by someone else shows as a difference).
 */
const compareLink: Comparator = (desired, observed) => {
  const out = compareKeys("linkData", "members")(desired, observed);
  const want = (desired.linkData ?? {}) as Record<string, unknown>;
  const have = (observed.linkData ?? {}) as Record<string, unknown>;
  for (const k of Object.keys(want)) if (!sameValue(want[k], have[k])) out.push({ field: `linkData.${k}`, desired: want[k], observed: have[k] });
  if (desired.members !== undefined) {
    const w = [...(desired.members as string[])].sort();
    const h = [...((observed.members as string[] | undefined) ?? [])].sort();
    if (!sameValue(w, h)) out.push({ field: "members", desired: w, observed: h });
  }
  return out;
};

const COMPARATORS: Partial<Record<ArtifactKind, Comparator>> = {
  "linux.link": compareLink,
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
  // `candidate` records which EgressRoutePolicy candidate the numbers belong to; the kernel does not know it.
  "linux.ipv4.fwmarkRule": compareKeys("candidate"),
  // The running value against what was asked (or what the kernel reports for it); atLeast takes a larger one.
  "linux.sysctl": (desired, observed) => {
    const want = String(desired.expectedValue ?? desired.value);
    const have = String(observed.value);
    const ok = desired.compare === "atLeast" ? Number(have) >= Number(want) : have === want;
    return ok ? [] : [{ field: "value", desired: want, observed: have }];
  },
  // Whether to announce the address is how it is added, not something the host shows.
  "linux.ipv4.address": compareKeys("gratuitousARP"),
  "routerd.daemon": () => [],
  "routerd.lease": () => [],
  "linux.ipv4.routeTable": () => [],
  "linux.route.protocol": () => [],
  // The text and the enablement; which daemon it runs and how to log out on removal are routerd's notes.
  "systemd.service": compareKeys("unit", "daemon", "instance", "logout"),
  "freebsd.rcScript": compareKeys("script", "daemon", "instance", "logout"),
  // Files and auto-choices are not on the host: the public key stands for the private key file, a random
  // listen port or an "auto" backend is whatever the host has.
  "wireguard.device": (desired, observed, recorded) =>
    compareKeys("privateKeyFile", "keyError", ...(desired.backend === "auto" ? ["backend"] : []))(desired, observed, recorded),
  // A peer's endpoint roams; a host name cannot be compared with the address wg shows. Counters are status.
  "wireguard.peer": (desired, observed, recorded) =>
    compareKeys("presharedKeyFile", "keyError", ...(/^[0-9.]+:\d+$|^\[/.test(String(desired.endpoint)) ? [] : ["endpoint"]))(desired, { presharedKeyFingerprint: "", ...observed }, recorded),
  // Which OSes an entry is for and whether it is optional are routerd's notions, not dpkg's; the version is whatever apt chose.
  package: compareKeys("os", "optional"),
  // `validate` and `reload` name what runs before and after writing; they are not part of the file.
  file: compareKeys("validate", "reload"),
  // A module is there or not; `optional` and `loadable` are routerd's notions.
  "linux.kernelModule": compareKeys("optional", "loadable"),
  // The service named is the one told of a change, not part of the file.
  "systemd.dropin": compareKeys("service"),
};

export function driftOf(kind: ArtifactKind, desired: Attributes, observed: Attributes, recorded?: Attributes): Difference[] {
  return (COMPARATORS[kind] ?? compareKeys())(desired, observed, recorded);
}
