// nftables observer: every table (so foreign ones are seen and left alone), the sets inside routerd tables,
// the digest routerd wrote into each table's comment, and a digest of what the kernel really holds.
import { createHash } from "node:crypto";
import { artifactNames, type ObservedArtifact } from "@routerd/resource";
import { CommandError, runJson, type CommandRunner } from "../exec.js";

type NftObject = Record<string, Record<string, unknown>>;

const COMMENT = /^table (\S+) (\S+) \{\n\s*comment "routerd:sha256=([0-9a-f]+)"/gm;

/** Digest of a table's objects as the kernel reports them, without handles (they change on every replace). */
function hostDigest(objects: NftObject[]): string {
  const strip = (o: NftObject) => {
    const [type, body] = Object.entries(o)[0]!;
    const { handle: _h, ...rest } = body;
    return { [type]: rest };
  };
  return createHash("sha256").update(JSON.stringify(objects.map(strip))).digest("hex").slice(0, 32);
}

export interface NftObservation {
  tables: ObservedArtifact[];
  sets: ObservedArtifact[];
}

export async function observeNft(runner: CommandRunner): Promise<NftObservation> {
  // Both listings at once: each takes tens of milliseconds with a thousand rules.
  const [json, text] = await Promise.all([runJson<{ nftables: NftObject[] }>(runner, "nft", ["-j", "list", "ruleset"]), runner.run("nft", ["list", "ruleset"], { largeOutput: true })]);
  if (text.code !== 0) throw new CommandError("nft list ruleset", text, text.stderr.trim());
  const comments = new Map<string, string>();
  for (const m of text.stdout.matchAll(COMMENT)) comments.set(artifactNames.nftTable(m[1]!, m[2]!), m[3]!);

  const byTable = new Map<string, NftObject[]>();
  const tables: { family: string; name: string }[] = [];
  const sets: ObservedArtifact[] = [];
  for (const obj of json?.nftables ?? []) {
    const [type, body] = Object.entries(obj)[0] ?? [];
    if (!type || !body || type === "metainfo") continue;
    if (type === "table") {
      tables.push({ family: String(body.family), name: String(body.name) });
      continue;
    }
    const key = artifactNames.nftTable(String(body.family), String(body.table));
    const objects = byTable.get(key);
    if (objects) objects.push(obj);
    else byTable.set(key, [obj]);
    if (type === "set") {
      sets.push({
        kind: "nft.set",
        name: artifactNames.nftSet(String(body.family), String(body.table), String(body.name)),
        attributes: { family: body.family, table: body.table, set: body.name, elements: normalizeElements(body.elem) },
      });
    }
  }
  return {
    tables: tables.map((t) => {
      const name = artifactNames.nftTable(t.family, t.name);
      const contentDigest = comments.get(name);
      return {
        kind: "nft.table" as const,
        name,
        attributes: { family: t.family, table: t.name, hostDigest: hostDigest(byTable.get(name) ?? []), ...(contentDigest ? { contentDigest } : {}) },
      };
    }),
    sets,
  };
}

function normalizeElements(elem: unknown): string[] {
  if (!Array.isArray(elem)) return [];
  return elem
    .map((e) => {
      if (typeof e === "string") return e;
      const p = (e as { prefix?: { addr: string; len: number } }).prefix;
      if (p) return `${p.addr}/${p.len}`;
      const r = (e as { range?: [string, string] }).range;
      return r ? `${r[0]}-${r[1]}` : JSON.stringify(e);
    })
    .sort();
}
