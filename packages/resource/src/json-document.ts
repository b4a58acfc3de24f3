// State files hold one large list (10,000 ledger entries on a big router). Indented JSON triples their size
// and the time to write them; one compact line per list item keeps them small, fast and still diffable.

/** `{...head, [listKey]: list}` as JSON with each list item on its own line. */
export function jsonOneItemPerLine(head: Record<string, unknown>, listKey: string, list: readonly unknown[]): string {
  const start = JSON.stringify({ ...head, [listKey]: [] }).slice(0, -2); // drop the closing "]}"
  if (list.length === 0) return `${start}]}\n`;
  const parts = [start, "\n"];
  for (let i = 0; i < list.length; i++) parts.push(i ? ",\n" : "", JSON.stringify(list[i]));
  parts.push("\n]}\n");
  return parts.join("");
}
