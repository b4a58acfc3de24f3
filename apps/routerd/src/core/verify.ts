// Verify: after apply, every desired artifact the host is expected to hold must be seen there. An executor that
// reported success is not enough — the kernel can drop an artifact as a side effect of another change (deleting
// an IPv4 primary address drops its secondaries) — so an artifact missing afterwards is a failure of this run.
import type { StepResult } from "@routerd/host";
import { observe, type ArtifactKind, type DesiredArtifact, type Inventory } from "@routerd/resource";

/** Kinds written synchronously by the executors: after a successful apply they are on the host or it failed. */
const VERIFIED_KINDS: ReadonlySet<ArtifactKind> = new Set<ArtifactKind>([
  "linux.link",
  "linux.ipv4.address",
  "linux.ipv6.address",
  "linux.ipv4.route",
  "linux.ipv6.route",
  "linux.ipv4.fwmarkRule",
  "nft.table",
  "linux.sysctl",
  "linux.hostname",
  "file",
  "systemd.dropin",
  "systemd.service",
  "freebsd.rcScript",
]);

/** A lease that has run out is meant to be gone (the executor does not put it back). */
const expired = (d: DesiredArtifact, now: number) => typeof d.attributes.validUntil === "string" && Date.parse(d.attributes.validUntil) <= now;

/**
 * The step results with the verification folded in: an ensure that succeeded but whose artifact is absent
 * afterwards becomes a failure, and a desired artifact that was on the host before the run and is gone after it
 * (nothing in this run was meant to touch it) is added as a failed ensure.
 */
export function verifyResults(desired: readonly DesiredArtifact[], before: Inventory, after: Inventory, results: readonly StepResult[], now = Date.now()): StepResult[] {
  const lost = new Map<string, DesiredArtifact>();
  for (const d of desired) {
    if (d.action !== "ensure" || !VERIFIED_KINDS.has(d.kind) || expired(d, now)) continue;
    if (observe(after, d.kind, d.name).state === "absent") lost.set(`${d.kind}/${d.name}`, d);
  }
  if (!lost.size) return [...results];
  const out = results.map((r) => {
    const id = `${r.kind}/${r.name}`;
    if (r.op !== "ensure" || !r.ok || r.deferred || !lost.has(id)) return r;
    lost.delete(id);
    return { ...r, ok: false, error: "applied, but not on the host when verified afterwards" };
  });
  for (const [id, d] of lost) {
    if (results.some((r) => `${r.kind}/${r.name}` === id)) continue; // its own step failed and says why
    if (observe(before, d.kind, d.name).state !== "present") continue; // not there before, not asked for now
    out.push({ op: "ensure", kind: d.kind, name: d.name, ok: false, error: "was on the host before this run and is gone after it (a side effect of another change); the next run puts it back" });
  }
  return out;
}
