// DNSSEC with real signed zones: ldns-signzone signs signed.test (NSEC), nsec3.test (NSEC3) and
// tampered.test (a record changed after signing); unbound serves them; routerd-dns-resolver forwards with
// dnssecValidate and the zones' DS records as trust anchors. Secure answers carry AD, the tampered one is
// SERVFAIL with an extended DNS error, CD passes it through, an unsigned zone is answered without AD.
import type { ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Lab, sh } from "../lib/lab.js";
import { kdig, signZone, startResolver, startUnbound } from "./peers.js";

const lab = new Lab("dnssec", "rdns");
let up: string;
let rtr: string;
let resolver: { child: ChildProcess };
const ROUTER = "192.168.54.1";

const zone = (origin: string, extra: string[] = []) =>
  [`$ORIGIN ${origin}`, "$TTL 300", `@ IN SOA ns.${origin} admin.${origin} 1 3600 600 86400 60`, `@ IN NS ns.${origin}`, "ns IN A 10.54.0.2", "www IN A 192.0.2.10", "mail IN MX 10 www", ...extra, ""].join("\n");

const ask = (...args: string[]) => kdig(lab, rtr, [`@${ROUTER}`, "+timeout=4", "+retry=0", ...args]);

beforeAll(async () => {
  up = lab.netns("up");
  rtr = lab.netns("rtr");
  lab.veth(up, "u0", rtr, "r0");
  sh(["ip", "-n", up, "addr", "add", "10.54.0.2/24", "dev", "u0"]);
  sh(["ip", "-n", rtr, "addr", "add", "10.54.0.1/24", "dev", "r0"]);
  sh(["ip", "-n", rtr, "addr", "add", `${ROUTER}/32`, "dev", "lo"]);

  const signed = signZone(lab.dir, "signed.test.", zone("signed.test."));
  const nsec3 = signZone(lab.dir, "nsec3.test.", zone("nsec3.test."), { nsec3: true });
  const tampered = signZone(lab.dir, "tampered.test.", zone("tampered.test."));
  // Change the address after signing: the RRSIG no longer matches.
  writeFileSync(tampered.file, readFileSync(tampered.file, "utf8").replace(/(www\.tampered\.test\.\s+\d+\s+IN\s+A\s+)192\.0\.2\.10/, "$1203.0.113.66"));
  writeFileSync(lab.path("plain.zone"), zone("plain.test."));
  await startUnbound(lab, up, "auth", {
    addresses: ["10.54.0.2"],
    zones: [
      { name: "signed.test.", file: signed.file },
      { name: "nsec3.test.", file: nsec3.file },
      { name: "tampered.test.", file: tampered.file },
      { name: "plain.test.", file: lab.path("plain.zone") },
    ],
  });
  resolver = await startResolver(lab, rtr, {
    listen: [{ name: "lo", addresses: [ROUTER], sources: ["0.0.0.0/0"] }],
    forwarders: [{ name: "default", match: ["."], upstreams: ["auth"], dnssecValidate: true }],
    upstreams: [{ name: "auth", protocol: "udp", address: "10.54.0.2" }],
    trustAnchors: [signed.ds, nsec3.ds, tampered.ds],
  });
}, 120_000);

afterAll(async () => {
  await lab.cleanup();
});

describe("DNSSEC validation with ldns-signed zones", () => {
  it("sets AD on a validated answer for clients that ask (DO or AD), and only then", () => {
    const secure = ask("www.signed.test", "A", "+dnssec");
    expect(secure.status).toBe("NOERROR");
    expect(secure.flags).toContain("ad");
    expect(secure.answer.map((r) => r.type)).toEqual(["A", "RRSIG"]);
    const plain = ask("www.signed.test", "A", "+noadflag");
    expect(plain.flags).not.toContain("ad");
    expect(plain.answer.map((r) => r.type)).toEqual(["A"]);
    expect(ask("www.signed.test", "A", "+adflag").flags).toContain("ad");
  });

  it("proves NXDOMAIN and NODATA with NSEC and with NSEC3", () => {
    for (const origin of ["signed.test", "nsec3.test"]) {
      const nx = ask(`nope.${origin}`, "A", "+dnssec");
      expect([origin, nx.status, nx.flags.includes("ad")]).toEqual([origin, "NXDOMAIN", true]);
      const nodata = ask(`www.${origin}`, "TXT", "+dnssec");
      expect([origin, nodata.status, nodata.answer.length, nodata.flags.includes("ad")]).toEqual([origin, "NOERROR", 0, true]);
    }
  });

  it("answers a tampered record SERVFAIL with EDE 6 (DNSSEC Bogus), unless the client sets CD", () => {
    const bogus = ask("www.tampered.test", "A", "+dnssec");
    expect(bogus.status).toBe("SERVFAIL");
    expect(bogus.ede).toBe(6);
    expect(bogus.answer).toHaveLength(0);
    // Records in the same zone that were not changed still validate.
    expect(ask("mail.tampered.test", "MX", "+dnssec").flags).toContain("ad");
    const unchecked = ask("www.tampered.test", "A", "+dnssec", "+cdflag");
    expect(unchecked.status).toBe("NOERROR");
    expect(unchecked.answer.find((r) => r.type === "A")?.data).toBe("203.0.113.66");
    expect(unchecked.flags).not.toContain("ad");
  });

  it("answers names no trust anchor covers without AD", () => {
    const r = ask("www.plain.test", "A", "+dnssec");
    expect(r.status).toBe("NOERROR");
    expect(r.flags).not.toContain("ad");
    expect(resolver.child.exitCode).toBeNull();
  });
});
