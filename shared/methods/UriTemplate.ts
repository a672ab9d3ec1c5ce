/**
 * RFC 6570 URI templates, level 1 only: `{var}` simple string expansion, and its inverse, matching
 * a URI against the template to recover the variables (what `resources/read` needs).
 *
 * Not supported, and refused when the template is built: operators (`{+path}`, `{#frag}`,
 * `{/seg}`, `{?query}` …), value lists (`{x,y}`), modifiers (`{list*}`, `{var:3}`), and a variable
 * used twice. A matched variable is one or more characters other than `/`, `?` and `#` (simple
 * expansion percent-encodes those), and is percent-decoded; a URI whose variable does not decode
 * does not match.
 *
 * Matching does not backtrack: its time is the URI's length times the number of variables (and
 * the literals' lengths), where the regular expression `^users://([^/?#]+)-([^/?#]+)$` takes
 * quadratic time on a long run of "a-". When a URI splits more than one way, earlier variables take as much as they
 * can, as a greedy regular expression would: `users://{org}-{id}` gives `a-b-c` as org "a-b",
 * id "c". Capping the length of a client's URI is the caller's business (`resources/read` does).
 */

/** RFC 6570 §2.3 `varname`: varchar *( ["."] varchar ), varchar = ALPHA / DIGIT / "_" / pct-encoded. */
const VARNAME = /^(?:\w|%[0-9A-Fa-f]{2})(?:\.?(?:\w|%[0-9A-Fa-f]{2}))*$/;
const EXPRESSION = /\{([^{}]*)\}/g;
/** What a variable's value never contains (simple expansion percent-encodes them). */
const DELIMITERS = "/?#";

/**
 * A compiled level-1 URI template.
 *
 * @example
 * const t = new UriTemplate("notes://{folder}/{id}");
 * t.match("notes://work/a%20b"); // { folder: "work", id: "a b" }
 * t.expand({ folder: "work", id: "a b" }); // "notes://work/a%20b"
 */
export class UriTemplate {
  readonly template: string;
  /** Variable names in order of appearance. */
  readonly variables: readonly string[];
  /** The text around the variables: one more than there are variables. */
  readonly #literals: string[];

  /** @throws TypeError naming the template when it is not level 1. */
  constructor(template: string) {
    this.template = template;
    const names: string[] = [];
    const literals: string[] = [];
    let last = 0;
    for (const match of template.matchAll(EXPRESSION)) {
      literals.push(literal(template, template.slice(last, match.index)));
      names.push(variable(template, match[1]!, names));
      last = match.index + match[0].length;
    }
    literals.push(literal(template, template.slice(last)));
    this.variables = names;
    this.#literals = literals;
  }

  /** The variables, percent-decoded, if `uri` matches the whole template; otherwise undefined. */
  match(uri: string): Record<string, string> | undefined {
    const found = split(uri, this.#literals);
    if (!found) return undefined;
    try {
      return Object.fromEntries(this.variables.map((name, i) => [name, decodeURIComponent(found[i]!)]));
    } catch {
      return undefined; // malformed percent-encoding (URIError): not a URI this template produces
    }
  }

  /** Simple string expansion (RFC 6570 §3.2.2): every character but unreserved ones is percent-encoded. */
  expand(vars: Readonly<Record<string, string>>): string {
    let uri = this.#literals[0]!;
    this.variables.forEach((name, i) => {
      uri += encodeUnreserved(vars[name] ?? "") + this.#literals[i + 1]!;
    });
    return uri;
  }
}

function literal(template: string, text: string): string {
  if (/[{}]/.test(text)) throw new TypeError(`URI template ${JSON.stringify(template)} has an unbalanced "{" or "}"`);
  return text;
}

function variable(template: string, expression: string, seen: string[]): string {
  if (!VARNAME.test(expression)) {
    throw new TypeError(
      `URI template ${JSON.stringify(template)}: {${expression}} is not supported; only RFC 6570 level 1 {name} variables are (no operators, lists or modifiers)`,
    );
  }
  if (seen.includes(expression)) throw new TypeError(`URI template ${JSON.stringify(template)} uses {${expression}} twice`);
  return expression;
}

/**
 * The values between `literals` in `uri`, or undefined when it has no such split. Each value is
 * non-empty and free of delimiters; earlier values are as long as they can be.
 *
 * Two passes instead of backtracking. Backwards, `fits[i][p]` records whether value i can start at
 * p with the rest of the template matching to the end. Forwards, each value then ends at the last
 * place within its delimiter-free run where the next literal sits and the next value fits: never
 * a dead end. Time and memory are the URI's length times the number of variables (and literals'
 * lengths), not exponential in them.
 */
function split(uri: string, literals: readonly string[]): string[] | undefined {
  const count = literals.length - 1;
  const head = literals[0]!;
  const tail = literals[count]!;
  if (count === 0) return uri === head ? [] : undefined;
  const last = uri.length - tail.length; // where the last value ends
  if (last <= head.length || !uri.startsWith(head) || !uri.endsWith(tail)) return undefined;
  // run[p]: the first delimiter at or after p, so the values starting at p end no later than it.
  const run = new Int32Array(last + 1);
  run[last] = last;
  for (let p = last - 1; p >= 0; p--) run[p] = DELIMITERS.includes(uri[p]!) ? p : run[p + 1]!;
  const fits: Uint8Array[] = [];
  // Can value i end at `end`: is the next literal there, and does value i + 1 fit after it?
  const endsAt = (i: number, end: number) => {
    const next = end + literals[i + 1]!.length;
    return i === count - 1 ? end === last : next < last && fits[i + 1]![next] === 1 && uri.startsWith(literals[i + 1]!, end);
  };
  for (let i = count - 1; i >= 0; i--) {
    const row = new Uint8Array(last);
    // Scanning right to left, `nearest` is the first place value i may end at or after `p + 1`.
    let nearest = Infinity;
    for (let p = last - 1; p >= head.length; p--) {
      if (endsAt(i, p + 1)) nearest = p + 1;
      row[p] = nearest <= run[p]! ? 1 : 0;
    }
    fits[i] = row;
  }
  if (fits[0]![head.length] !== 1) return undefined;
  const values: string[] = [];
  let start = head.length;
  for (let i = 0; i < count; i++) {
    let end = run[start]!;
    while (!endsAt(i, end)) end--; // terminates above `start`: fits[i][start] said so
    values.push(uri.slice(start, end));
    start = end + literals[i + 1]!.length;
  }
  return values;
}

/** `encodeURIComponent` also leaves `!'()*` alone; RFC 6570 simple expansion encodes them. */
function encodeUnreserved(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
