// DUID construction (RFC 8415 §11): DUID-LLT, DUID-EN and DUID-LL. Pure; persistence is in state-store.ts.

export type DuidType = "ll" | "llt" | "en";

const DUID_TYPE_CODE: Record<DuidType, number> = { llt: 1, en: 2, ll: 3 };
const DUID_TYPE_BY_CODE = new Map<number, DuidType | "uuid">([
  [1, "llt"],
  [2, "en"],
  [3, "ll"],
  [4, "uuid"],
]);

/** IANA hardware type 1 (Ethernet): the only link layer these DUIDs are built from. */
const HW_ETHERNET = 1;
/** Seconds from the Unix epoch to 2000-01-01T00:00:00Z, the DUID-LLT time base. */
const DUID_EPOCH_S = 946_684_800;
/** RFC 5612 documentation enterprise number: the default until an operator configures their own. */
export const DEFAULT_ENTERPRISE_NUMBER = 32473;

export interface DuidInputs {
  /** 6-byte MAC of the interface; LL and LLT need it. */
  mac?: Uint8Array;
  /** Unix time in ms (for LLT). */
  nowMs: number;
  enterpriseNumber?: number;
  /** Identifier bytes for DUID-EN (random, generated once). */
  identifier: Uint8Array;
}

export interface BuiltDuid {
  duid: Uint8Array;
  type: DuidType;
  /** Set when the requested type could not be built (no MAC) and DUID-EN was used instead. */
  fallbackReason?: string;
}

function usableMac(mac: Uint8Array | undefined): mac is Uint8Array {
  return mac !== undefined && mac.length === 6 && mac.some((b) => b !== 0);
}

export function buildDuid(type: DuidType, inp: DuidInputs): BuiltDuid {
  if ((type === "ll" || type === "llt") && !usableMac(inp.mac)) {
    return { ...buildDuid("en", inp), fallbackReason: `interface has no usable MAC address for DUID-${type.toUpperCase()}` };
  }
  const head = Buffer.alloc(2);
  head.writeUInt16BE(DUID_TYPE_CODE[type]);
  if (type === "en") {
    const en = Buffer.alloc(4);
    en.writeUInt32BE((inp.enterpriseNumber ?? DEFAULT_ENTERPRISE_NUMBER) >>> 0);
    return { type, duid: Uint8Array.from(Buffer.concat([head, en, inp.identifier])) };
  }
  const hw = Buffer.alloc(2);
  hw.writeUInt16BE(HW_ETHERNET);
  const mac = inp.mac as Uint8Array;
  if (type === "ll") return { type, duid: Uint8Array.from(Buffer.concat([head, hw, mac])) };
  const t = Buffer.alloc(4);
  t.writeUInt32BE((Math.floor(inp.nowMs / 1000) - DUID_EPOCH_S) >>> 0);
  return { type, duid: Uint8Array.from(Buffer.concat([head, hw, t, mac])) };
}

export function duidTypeOf(duid: Uint8Array): DuidType | "uuid" | "unknown" {
  if (duid.length < 2) return "unknown";
  return DUID_TYPE_BY_CODE.get((duid[0]! << 8) | duid[1]!) ?? "unknown";
}

/** Parses "aa:bb:cc:dd:ee:ff" into 6 bytes. */
export function parseMac(text: string): Uint8Array | undefined {
  const parts = text.trim().split(":");
  if (parts.length !== 6 || parts.some((p) => !/^[0-9a-fA-F]{2}$/.test(p))) return undefined;
  return Uint8Array.from(parts.map((p) => Number.parseInt(p, 16)));
}
