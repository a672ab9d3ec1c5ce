/**
 * The one shape of a validation message a client can provoke: the first entries, each cut to
 * `MAX_ENTRY_CHARS`, then a count of the rest. The client chooses both how many issues there are
 * (one per bad array item) and how long one is: zod's strict object names every unknown key in a
 * single issue, so bounding the count alone would let a message of any length through.
 *
 * Not here: choosing which entries to show (each validator knows its own), the prefix naming the
 * tool or prompt.
 */

/** Characters one entry (an issue and its path) may take; the cut is marked with "…". */
export const MAX_ENTRY_CHARS = 300;

/**
 * @param shown The entries to show, already at most the caller's maximum.
 * @param total How many there were in all; the rest are counted as "… and N more".
 * @param noun  Singular and plural, e.g. `["issue", "issues"]`.
 *
 * @example boundedReport(["✖ Required"], 3, ["issue", "issues"]) // "✖ Required\n… and 2 more issues"
 */
export function boundedReport(shown: readonly string[], total: number, [one, many]: readonly [string, string]): string {
  const lines = shown.map(cut);
  const more = total - shown.length;
  if (more > 0) lines.push(`… and ${more} more ${more === 1 ? one : many}`);
  return lines.join("\n");
}

function cut(entry: string): string {
  if (entry.length <= MAX_ENTRY_CHARS) return entry;
  let end = MAX_ENTRY_CHARS - 1;
  // Never half a surrogate pair: the message goes out as JSON, where a lone one reads as garbage.
  const unit = entry.charCodeAt(end - 1);
  if (unit >= 0xd800 && unit <= 0xdbff) end--;
  return `${entry.slice(0, end)}…`;
}
