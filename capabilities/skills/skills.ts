/**
 * `skills({ skills: [...] })`: the Skills extension (SEP-2640, `io.modelcontextprotocol/skills`). Every file of
 * every skill is served as a resource (`resources/list`, `resources/read`, in every era), and the
 * extension brings three methods:
 * - `skills/list`: each skill's entry (URI, frontmatter, every file with its `sha256:` digest and
 *   size), paginated like the other lists; an entry is never split across pages.
 * - `skills/get`: one entry by its `SKILL.md` URI; -32602 for a URI that is no skill here.
 * - `resources/directory/read` (advertised as `directoryRead: true`): the direct children of a
 *   directory of the skill namespace (a skill's root, its subdirectories, a prefix), subdirectories
 *   as `inode/directory`; -32602 for anything else.
 *
 * Skills are fixed in the definition, so their entries are the same for every caller: on
 * 2026-07-28 results carry `cacheScope: "public"` and the `ttlMs` given (default five minutes).
 * Digests are computed once per isolate, on the first request that needs them.
 */
import type { Method, Result } from "../../shared/definition/Method.ts";
import type { CacheHint, Extension } from "../../shared/definition/ServerOptions.ts";
import { McpError } from "../../shared/errors/McpError.ts";
import { requireUri } from "../../shared/methods/resourceMethods.ts";
import { listResult } from "../../shared/methods/paginate.ts";
import { isModernVersion } from "../../shared/protocol/versions.ts";
import { resource } from "../../shared/server/resource.ts";
import type { Skill, SkillFile } from "./skill.ts";

export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";
/** The MIME type of a directory resource (SEP-2640 "Directory Resources"). */
export const DIRECTORY_MIME_TYPE = "inode/directory";
/** Default caching hint of `skills/list` and `skills/get` on 2026-07-28. */
const DEFAULT_CACHE: CacheHint = { ttlMs: 300_000, cacheScope: "public" };

export interface SkillsOptions {
  /** The skills served, each made with `skill()`; at least one. */
  skills: readonly Skill[];
  /** The 2026-07-28 caching hint of `skills/list` and `skills/get`; default five minutes, public. */
  caching?: CacheHint;
}

/**
 * @example
 * defineServer({ …, use: [skills({ skills: [weatherAlerts] })] })
 */
export function skills(options: SkillsOptions): Extension {
  const list = options?.skills;
  return {
    id: SKILLS_EXTENSION,
    extend(server) {
      if (!Array.isArray(list) || list.length === 0) throw new TypeError("skills(): give it { skills: [...] }, a list of skills, each made with skill()");
      /** Each skill's place in `list`, by its URI. */
      const indexOf = new Map<string, number>();
      for (const [index, one] of list.entries()) {
        if (typeof one?.uri !== "string" || !Array.isArray(one.files)) throw new TypeError(`skills(): ${JSON.stringify(one)} was not made with skill()`);
        if (indexOf.has(one.uri)) throw new TypeError(`skills(): ${one.uri} is given twice`);
        indexOf.set(one.uri, index);
      }
      const cache = options.caching ?? DEFAULT_CACHE;
      // Every entry's digests at once, on the first request that needs any: the list is fixed and small.
      let entries: Promise<Result[]> | undefined;
      const allEntries = () => (entries ??= Promise.all(list.map(skillEntry)));
      const cached = (result: Result, protocolVersion: string): Result => (isModernVersion(protocolVersion) ? { ...result, ttlMs: cache.ttlMs, cacheScope: cache.cacheScope } : result);
      const directories = directoryTree(list);
      const methods: Record<string, Method> = {
        "skills/list": async (params, ctx) => cached(listResult("skills", await allEntries(), params.cursor), ctx.client.protocolVersion),
        "skills/get": async (params, ctx) => {
          const uri = requireUri(params, "skills/get");
          const index = indexOf.get(uri);
          if (index === undefined) throw McpError.invalidParams(`No skill is served at ${uri}`);
          return cached({ skill: (await allEntries())[index] }, ctx.client.protocolVersion);
        },
        "resources/directory/read": async (params) => {
          const uri = requireUri(params, "resources/directory/read");
          const children = directories.get(uri);
          if (!children) throw McpError.invalidParams(`${uri} is not a directory resource`);
          return listResult("resources", children, params.cursor);
        },
      };
      const resources = list.flatMap((one: Skill) => one.files.map((file: SkillFile) => fileResource(one, file)));
      return { settings: { directoryRead: true }, options: { ...server, resources: [...(server.resources ?? []), ...resources] }, methods };
    },
  };
}

/** A skill's entry (SEP-2640 `Skill`): every file with its digest and size, `SKILL.md` first. */
async function skillEntry(one: Skill): Promise<Result> {
  const resources = await Promise.all(one.files.map(async (file) => ({ uri: file.uri, digest: await digestOf(file.content), size: file.size })));
  return { uri: one.uri, frontmatter: structuredClone(one.frontmatter), resources };
}

/** `sha256:` and 64 lowercase hex digits, over the file's raw bytes (UTF-8 for text). */
async function digestOf(content: string | Uint8Array): Promise<string> {
  const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content;
  // A fresh copy: its buffer is a plain ArrayBuffer, the BufferSource every runtime's types accept.
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", new Uint8Array(bytes)));
  return `sha256:${Array.from(hash, (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}

/** A file as a resource; `SKILL.md` named and described from its frontmatter, as the extension asks. */
function fileResource(one: Skill, file: SkillFile) {
  const isManifest = file.path === "SKILL.md";
  return resource({
    uri: file.uri,
    name: isManifest ? String(one.frontmatter.name) : file.path,
    ...(isManifest && { description: String(one.frontmatter.description) }),
    mimeType: file.mimeType,
    size: file.size,
    read: async () => file.content,
  });
}

/** Every directory of the skill namespace (each skill's root and subdirectories, and the prefixes above them) → its direct children. */
function directoryTree(list: readonly Skill[]): Map<string, Result[]> {
  const tree = new Map<string, Map<string, Result>>();
  const add = (directory: string, uri: string, child: Result) => {
    let children = tree.get(directory);
    if (!children) tree.set(directory, (children = new Map()));
    children.set(uri, child);
  };
  for (const one of list) {
    for (const file of one.files) {
      // skill://a/b/c.md → directories skill://a and skill://a/b; the authority alone is the top.
      const segments = file.uri.slice("skill://".length).split("/");
      for (let depth = 1; depth < segments.length; depth++) {
        const directory = `skill://${segments.slice(0, depth).join("/")}`;
        const isFile = depth === segments.length - 1;
        const uri = isFile ? file.uri : `skill://${segments.slice(0, depth + 1).join("/")}`;
        const name = segments[depth];
        add(directory, uri, isFile ? { uri, name, mimeType: file.mimeType, size: file.size } : { uri, name, mimeType: DIRECTORY_MIME_TYPE });
      }
    }
  }
  return new Map([...tree].map(([directory, children]) => [directory, [...children.values()]]));
}
