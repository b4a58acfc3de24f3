import { describe, expect, it } from "vitest";
import { keyFingerprint, wireGuardPublicKey } from "../wireguard/keys.js";
import { parseWgDump, wireGuardArtifacts } from "./wireguard.js";

// A key pair made with `wg genkey | tee k | wg pubkey` (test data only).
const PRIVATE = "aOI7Ew6Msv3YBkuTNzxe3Ha7Zz0xu0/Dq6I3xJ6FUnE=";
const PSK = "Vj2FnJHGOfn3OfHnDkBoYN1G1lUBoyjDr4iEUAONZrU=";

describe("WireGuard keys", () => {
  it("derives the public key as wg pubkey does", () => {
    expect(wireGuardPublicKey(PRIVATE)).toBe(PUBLIC);
  });
  it("fingerprints a preshared key without revealing it", () => {
    const f = keyFingerprint(PSK);
    expect(f).toMatch(/^sha256:[0-9a-f]{16}$/);
    expect(f).not.toContain(PSK);
    expect(keyFingerprint(` ${PSK}\n`)).toBe(f);
  });
});

const PUBLIC = "+y8pKT/J3zOYQ+aF/fARjn9NoQK9EY6pA0nWj2/HGyc="; // wg pubkey of PRIVATE
const PEER = "R+kpv0E7+9ZfEtF0WNgYBwK3xWemo6L7sQ+YHZWIuGY=";
const PEER2 = "L8lFstTe/ajEvrkMwvPxZDVkuMxYzy7xGQBU8eXkqTY=";

describe("wg show dump", () => {
  const dump = [
    `${PRIVATE}\t${PUBLIC}\t51820\toff`,
    `${PEER}\t${PSK}\t192.0.2.7:51820\t10.99.1.0/24,fd99::/64\t1767225600\t1024\t2048\t25`,
    `${PEER2}\t(none)\t(none)\t(none)\t0\t0\t0\toff`,
    "",
  ].join("\n");

  it("parses the device and peers and drops every key but the public ones", () => {
    const d = parseWgDump("wg0", "wireguard-go", dump);
    expect(d).toEqual({
      ifname: "wg0",
      backend: "wireguard-go",
      publicKey: PUBLIC,
      listenPort: 51820,
      peers: [
        { publicKey: PEER, presharedKeyFingerprint: keyFingerprint(PSK), endpoint: "192.0.2.7:51820", allowedIPs: ["10.99.1.0/24", "fd99::/64"], latestHandshake: "2026-01-01T00:00:00.000Z", transferRxBytes: 1024, transferTxBytes: 2048, persistentKeepalive: 25 },
        { publicKey: PEER2, allowedIPs: [], transferRxBytes: 0, transferTxBytes: 0, persistentKeepalive: 0 },
      ],
    });
    const text = JSON.stringify(wireGuardArtifacts([d]));
    expect(text).not.toContain(PRIVATE);
    expect(text).not.toContain(PSK);
    expect(wireGuardArtifacts([d]).map((a) => `${a.kind} ${a.name}`)).toEqual(["wireguard.device wg0", `wireguard.peer wg0/${PEER}`, `wireguard.peer wg0/${PEER2}`]);
  });

  it("reads a fwmark", () => {
    expect(parseWgDump("wg1", "kernel", `${PRIVATE}\t${PUBLIC}\t0\t0x101\n`)).toMatchObject({ fwmark: 0x101, peers: [] });
  });
});
