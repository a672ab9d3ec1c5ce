// @ts-check
/**
 * Fills in a template file: `{{name}}` placeholders, and blocks of lines kept only for some
 * runtimes — a line `<!-- if workers,node -->` opens one (kept when any runtime it names was
 * chosen), a line `<!-- end -->` closes it; the marker lines themselves go. Blocks do not nest.
 * Nothing else is interpreted: the templates stay real files that read (and type-check) as they are.
 */

const IF = /^<!-- if ([a-z,]+) -->$/;
const END = "<!-- end -->";
const PLACEHOLDER = /\{\{(\w+)\}\}/g;

/**
 * @example renderTemplate("# {{name}}\n<!-- if deno -->\nDeno!\n<!-- end -->\n", { values: { name: "x" }, runtimes: ["node"] }) // "# x\n"
 * @param {string} text
 * @param {object} context
 * @param {Record<string, string>} context.values
 * @param {readonly string[]} context.runtimes
 * @returns {string}
 * @throws {Error} for a placeholder without a value, or an unbalanced block: a broken template
 */
export function renderTemplate(text, { values, runtimes }) {
  /** @type {string[]} */
  const kept = [];
  /** @type {boolean | undefined} undefined outside a block */
  let keeping;
  for (const line of text.split("\n")) {
    const opened = IF.exec(line.trim());
    if (opened) {
      if (keeping !== undefined) throw new Error(`Template block "${line.trim()}" opened inside another; blocks do not nest.`);
      keeping = (opened[1] ?? "").split(",").some((runtime) => runtimes.includes(runtime));
    } else if (line.trim() === END) {
      if (keeping === undefined) throw new Error(`Template has an "${END}" without its "<!-- if … -->".`);
      keeping = undefined;
    } else if (keeping !== false) kept.push(line);
  }
  if (keeping !== undefined) throw new Error(`Template has a block without its "${END}".`);
  return kept.join("\n").replace(PLACEHOLDER, (_, key) => {
    const value = values[key];
    if (value === undefined) throw new Error(`Template placeholder {{${key}}} has no value.`);
    return value;
  });
}
