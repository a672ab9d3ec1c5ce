/**
 * RFC 6570 URI templates, level 1 only: `{var}` simple string expansion, and its inverse, matching
 * a URI against the template to recover the variables (what `resources/read` needs).
 *
 * Not supported, and refused when the template is built: operators (`{+path}`, `{#frag}`,
 * `{/seg}`, `{?query}` …), value lists (`{x,y}`), modifiers (`{list*}`, `{var:3}`), and a variable
 * used twice. A matched variable is one or more characters other than `/`, `?` and `#` (simple
 * expansion percent-encodes those), and is percent-decoded; a URI whose variable does not decode
 * does not match.
 */

/** RFC 6570 §2.3 `varname`: varchar *( ["."] varchar ), varchar = ALPHA / DIGIT / "_" / pct-encoded. */
const VARNAME = /^(?:\w|%[0-9A-Fa-f]{2})(?:\.?(?:\w|%[0-9A-Fa-f]{2}))*$/;
const EXPRESSION = /\{([^{}]*)\}/g;
/** One variable's value in a URI: never empty, never crossing a path, query or fragment delimiter. */
const VALUE = "([^/?#]+)";

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
  readonly #literals: string[];
  readonly #pattern: RegExp;

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
    this.#pattern = new RegExp(`^${literals.map(escapeRegExp).join(VALUE)}$`);
  }

  /** The variables, percent-decoded, if `uri` matches the whole template; otherwise undefined. */
  match(uri: string): Record<string, string> | undefined {
    const found = this.#pattern.exec(uri);
    if (!found) return undefined;
    try {
      return Object.fromEntries(this.variables.map((name, i) => [name, decodeURIComponent(found[i + 1]!)]));
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

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** `encodeURIComponent` also leaves `!'()*` alone; RFC 6570 simple expansion encodes them. */
function encodeUnreserved(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
