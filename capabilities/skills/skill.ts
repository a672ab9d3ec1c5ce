/**
 * `skill()`: declares an Agent Skill to serve over MCP (the Skills extension, SEP-2640): its
 * frontmatter, the body of its `SKILL.md`, and its supporting files. Each file becomes a resource
 * at `skill://<prefix>/<name>/<path>`; `skills()` publishes them.
 *
 * The `SKILL.md` is written from the frontmatter object, not parsed from a file: every value is
 * set down as YAML the way JSON spells it (JSON is YAML), so the frontmatter a host parses from
 * the file is the listing's `frontmatter`, field for field, as the extension requires, and no YAML
 * parser ships in the Worker. The Agent Skills naming rules and the extension's limits (512 files,
 * 16 MiB) are checked here, once; a skill past them is refused with a sentence, not served.
 */
import { utf8Length } from "../../shared/bytes/utf8Length.ts";

/** Limits every host must accept (SEP-2640 "Limits"); a server should serve nothing larger. */
export const MAX_SKILL_FILES = 512;
export const MAX_SKILL_BYTES = 16 * 1024 * 1024;
/** The Agent Skills specification's bound on `description`. */
const MAX_DESCRIPTION_CHARS = 1024;

/** 1–64 characters, lowercase letters, digits and single hyphens inside (Agent Skills "name"). */
const SKILL_NAME = /^(?=.{1,64}$)[a-z0-9]+(-[a-z0-9]+)*$/;
/** A prefix segment; the first one is the URI's authority, so a reg-name (RFC 3986). */
const SEGMENT = /^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$/;
const FILE_PATH = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;
const FRONTMATTER_KEY = /^[A-Za-z][A-Za-z0-9_-]*$/;
/** Strings YAML would read as something else if written plain (YAML 1.1 and 1.2 core). */
const PLAIN_SAFE = /^[a-z][a-z0-9-]*$/;
const YAML_WORDS = new Set(["true", "false", "null", "yes", "no", "on", "off", "y", "n"]);

const MIME_TYPES: Record<string, string> = {
  md: "text/markdown",
  txt: "text/plain",
  json: "application/json",
  csv: "text/csv",
  html: "text/html",
  yaml: "application/yaml",
  yml: "application/yaml",
  py: "text/x-python",
  sh: "text/x-shellscript",
  js: "text/javascript",
};

export interface SkillDefinition {
  /** What `SKILL.md` starts with. `name` is the skill's last path segment; `description` says when to use it. */
  frontmatter: { name: string; description: string; [field: string]: unknown };
  /** The Markdown after the frontmatter: the instructions. */
  body: string;
  /** Supporting files by path from the skill's root, e.g. `{ "references/STATES.md": "…" }`; text or bytes. */
  files?: Readonly<Record<string, string | Uint8Array>>;
  /** Path segments before the name, for a server that groups its skills, e.g. `"acme/billing"`. */
  prefix?: string;
}

/** One file of a skill, as served. */
export interface SkillFile {
  readonly uri: string;
  /** Path from the skill's root, `SKILL.md` included. */
  readonly path: string;
  readonly content: string | Uint8Array;
  readonly size: number;
  readonly mimeType: string;
}

/** A checked skill. */
export interface Skill {
  /** `skill://…/SKILL.md`. */
  readonly uri: string;
  /** The skill's root directory: the URI without `/SKILL.md`. */
  readonly root: string;
  readonly frontmatter: Readonly<Record<string, unknown>>;
  /** `SKILL.md` first. */
  readonly files: readonly SkillFile[];
}

/**
 * @throws TypeError naming the rule broken: a name against the naming rules, a file path with `..`, a value JSON cannot carry…
 *
 * @example
 * skill({ frontmatter: { name: "weather-alerts", description: "Check US weather alerts with this server's tools" },
 *         body: "# Weather alerts\n\nCall getAlerts with a two-letter state code…",
 *         files: { "references/STATES.md": STATE_CODES } })
 */
export function skill(definition: SkillDefinition): Skill {
  const { frontmatter, body, files = {}, prefix } = definition ?? ({} as SkillDefinition);
  const name = frontmatter?.name;
  const what = `Skill ${JSON.stringify(name)}`;
  if (typeof name !== "string" || !SKILL_NAME.test(name)) {
    throw new TypeError(`${what}: frontmatter.name must be 1-64 lowercase letters, digits and hyphens, with no hyphen first, last or twice in a row`);
  }
  const description = frontmatter.description;
  if (typeof description !== "string" || description.trim() === "" || description.length > MAX_DESCRIPTION_CHARS) {
    throw new TypeError(`${what}: frontmatter.description must say in 1-${MAX_DESCRIPTION_CHARS} characters what the skill does and when to use it`);
  }
  if (typeof body !== "string") throw new TypeError(`${what}: "body" must be the Markdown of SKILL.md after its frontmatter`);
  const segments = prefix === undefined ? [] : String(prefix).split("/");
  const badSegment = segments.find((segment) => !SEGMENT.test(segment));
  if (badSegment !== undefined) throw new TypeError(`${what}: prefix segment ${JSON.stringify(badSegment)} must be letters, digits, ".", "_" or "-" (the first one is the URI's authority)`);
  const root = `skill://${[...segments, name].join("/")}`;
  const served: SkillFile[] = [fileOf(root, "SKILL.md", renderSkillMd(what, frontmatter, body))];
  for (const [path, content] of Object.entries(files)) {
    if (!FILE_PATH.test(path) || path.split("/").some((segment) => segment === "." || segment === "..")) {
      throw new TypeError(`${what}: file path ${JSON.stringify(path)} must be relative, "/"-separated, of letters, digits, ".", "_" and "-", with no "." or ".." segment`);
    }
    if (path === "SKILL.md") throw new TypeError(`${what}: SKILL.md is written from "frontmatter" and "body"; leave it out of "files"`);
    if (typeof content !== "string" && !(content instanceof Uint8Array)) throw new TypeError(`${what}: file ${path} must be a string or a Uint8Array`);
    served.push(fileOf(root, path, content));
  }
  const total = served.reduce((sum, file) => sum + file.size, 0);
  if (served.length > MAX_SKILL_FILES || total > MAX_SKILL_BYTES) {
    throw new TypeError(`${what} has ${served.length} files and ${total} bytes; a skill may have at most ${MAX_SKILL_FILES} files and ${MAX_SKILL_BYTES} bytes (SEP-2640 "Limits"), or hosts may refuse it`);
  }
  return Object.freeze({ uri: `${root}/SKILL.md`, root, frontmatter: structuredClone(frontmatter), files: Object.freeze(served) });
}

function fileOf(root: string, path: string, content: string | Uint8Array): SkillFile {
  const extension = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase();
  const mimeType = (extension && MIME_TYPES[extension]) ?? (typeof content === "string" ? "text/plain" : "application/octet-stream");
  const size = typeof content === "string" ? utf8Length(content) : content.byteLength;
  return Object.freeze({ uri: `${root}/${path}`, path, content, size, mimeType });
}

/** `SKILL.md`: the frontmatter as YAML whose values are spelled as JSON, then the body. */
function renderSkillMd(what: string, frontmatter: Record<string, unknown>, body: string): string {
  const lines = ["---"];
  for (const [key, value] of Object.entries(frontmatter)) {
    if (!FRONTMATTER_KEY.test(key)) throw new TypeError(`${what}: frontmatter key ${JSON.stringify(key)} must be a plain word (letters, digits, "_", "-")`);
    lines.push(`${key}: ${yamlValue(what, key, value)}`);
  }
  lines.push("---", "");
  return `${lines.join("\n")}\n${body}`;
}

function yamlValue(what: string, key: string, value: unknown): string {
  if (typeof value === "string" && PLAIN_SAFE.test(value) && !YAML_WORDS.has(value)) return value;
  // JSON.stringify would drop what JSON cannot carry (undefined, functions) or change it (NaN, a Date): refuse those.
  if (!isJsonValue(value)) throw new TypeError(`${what}: frontmatter.${key} must be a JSON value (string, number, boolean, null, list or object of those)`);
  return JSON.stringify(value);
}

/** Whether JSON carries `value` exactly: strings, finite numbers, booleans, null, and arrays and plain objects of those. */
function isJsonValue(value: unknown): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJsonValue);
  if (typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype) return false;
  return Object.values(value).every(isJsonValue);
}
