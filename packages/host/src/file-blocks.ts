// routerd-owned blocks inside files it shares with others: only the text between its own markers is
// ever written or removed; everything else in the file is kept byte for byte.

const begin = (block: string) => `# BEGIN routerd ${block}`;
const end = (block: string) => `# END routerd ${block}`;

export function findBlock(text: string, block: string): string | undefined {
  const lines = text.split("\n");
  const b = lines.indexOf(begin(block));
  if (b < 0) return undefined;
  const e = lines.indexOf(end(block), b + 1);
  if (e < 0) return undefined;
  return lines.slice(b + 1, e).join("\n") + (e > b + 1 ? "\n" : "");
}

/** Inserts or replaces the block; appends it at the end when new. */
export function upsertBlock(text: string, block: string, content: string): string {
  const body = content.endsWith("\n") || content === "" ? content : `${content}\n`;
  const wrapped = `${begin(block)}\n${body}${end(block)}\n`;
  const lines = text.split("\n");
  const b = lines.indexOf(begin(block));
  const e = b < 0 ? -1 : lines.indexOf(end(block), b + 1);
  if (b < 0 || e < 0) {
    const base = text === "" || text.endsWith("\n") ? text : `${text}\n`;
    return base + wrapped;
  }
  return [...lines.slice(0, b), wrapped.slice(0, -1), ...lines.slice(e + 1)].join("\n");
}

export function removeBlock(text: string, block: string): string {
  const lines = text.split("\n");
  const b = lines.indexOf(begin(block));
  const e = b < 0 ? -1 : lines.indexOf(end(block), b + 1);
  if (b < 0 || e < 0) return text;
  return [...lines.slice(0, b), ...lines.slice(e + 1)].join("\n");
}
