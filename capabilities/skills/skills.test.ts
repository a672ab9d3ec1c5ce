import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { call, mcpError, stubContext } from "../../shared/testing/testKit.ts";
import { MAX_SKILL_FILES, skill } from "./skill.ts";
import { DIRECTORY_MIME_TYPE, SKILLS_EXTENSION, skills } from "./skills.ts";
import { CompiledServer } from "../../shared/server/CompiledServer.ts";

const refunds = skill({
  prefix: "acme/billing",
  frontmatter: { name: "refunds", description: "Process refunds per policy", license: "Apache-2.0", metadata: { version: "2.1.0", "needs-review": true }, tags: ["billing", "yes"] },
  body: "# Refunds\n\nSee [the email](examples/email.md).\n",
  files: { "examples/email.md": "Dear customer — ünïcödé\n", "templates/regional/eu.md": "EU", "scripts/run.bin": new Uint8Array([0, 1, 2, 255]) },
});
const git = skill({ frontmatter: { name: "git-workflow", description: "Branch and commit by the team's rules" }, body: "Use short branches." });
const server = new CompiledServer({ name: "skills", version: "1", use: [skills({ skills: [refunds, git] })] });
const at = (protocolVersion: string) => stubContext({}, { client: { protocolVersion, capabilities: {} } });
const sha256 = (bytes: string | Uint8Array) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

describe("skills()", () => {
  it("declares the extension with directoryRead, and the resources capability it needs", () => {
    expect(server.problem).toBeUndefined();
    const capabilities = server.initialize({ protocolVersion: "2025-11-25" }).result.capabilities as Record<string, unknown>;
    expect(capabilities.extensions).toEqual({ [SKILLS_EXTENSION]: { directoryRead: true } });
    expect(capabilities.resources).toBeDefined();
    expect(server.discover().capabilities).toMatchObject({ extensions: { [SKILLS_EXTENSION]: { directoryRead: true } }, resources: {} });
  });

  it("writes SKILL.md so that a YAML parser reads back the entry's frontmatter, field for field", async () => {
    const { contents } = (await call(server, "resources/read", { uri: refunds.uri })) as { contents: { text: string; mimeType: string }[] };
    const file = contents[0]!;
    expect(file.mimeType).toBe("text/markdown");
    const [, yaml, body] = /^---\n([\s\S]*?)\n---\n\n([\s\S]*)$/.exec(file.text)!;
    expect(parseYaml(yaml!)).toEqual(refunds.frontmatter);
    expect(body).toBe("# Refunds\n\nSee [the email](examples/email.md).\n");
  });

  it("lists each skill with every file's sha256 digest and byte size, SKILL.md first", async () => {
    const { skills: entries } = (await call(server, "skills/list")) as { skills: { uri: string; frontmatter: unknown; resources: { uri: string; digest: string; size: number }[] }[] };
    expect(entries.map((e) => e.uri)).toEqual(["skill://acme/billing/refunds/SKILL.md", "skill://git-workflow/SKILL.md"]);
    const [entry] = entries;
    expect(entry!.frontmatter).toEqual(refunds.frontmatter);
    for (const listed of entry!.resources) {
      const { contents } = (await call(server, "resources/read", { uri: listed.uri })) as { contents: { text?: string; blob?: string }[] };
      const bytes = contents[0]!.text !== undefined ? Buffer.from(contents[0]!.text, "utf8") : Buffer.from(contents[0]!.blob!, "base64");
      expect(listed.digest).toBe(sha256(bytes));
      expect(listed.size).toBe(bytes.byteLength);
    }
    expect(entry!.resources.map((r) => r.uri)).toEqual([
      "skill://acme/billing/refunds/SKILL.md",
      "skill://acme/billing/refunds/examples/email.md",
      "skill://acme/billing/refunds/templates/regional/eu.md",
      "skill://acme/billing/refunds/scripts/run.bin",
    ]);
  });

  it("answers skills/get with the listed entry, and -32602 for a URI that is no skill", async () => {
    const listed = ((await call(server, "skills/list")) as { skills: unknown[] }).skills[1];
    expect(await call(server, "skills/get", { uri: git.uri })).toEqual({ skill: listed });
    expect((await mcpError(call(server, "skills/get", { uri: "skill://git-workflow/README.md" }))).code).toBe(-32602);
    expect((await mcpError(call(server, "skills/get", {}))).code).toBe(-32602);
  });

  it("adds caching hints on 2026-07-28 only", async () => {
    expect(await call(server, "skills/get", { uri: git.uri }, at("2026-07-28"))).toMatchObject({ ttlMs: 300_000, cacheScope: "public" });
    expect(await call(server, "skills/list", {}, at("2025-11-25"))).not.toHaveProperty("ttlMs");
  });

  it("reads each directory of the namespace one level deep, and refuses files and unknown URIs with -32602", async () => {
    const read = async (uri: string) => ((await call(server, "resources/directory/read", { uri })) as { resources: { uri: string; mimeType: string }[] }).resources;
    expect(await read("skill://acme")).toEqual([{ uri: "skill://acme/billing", name: "billing", mimeType: DIRECTORY_MIME_TYPE }]);
    expect((await read("skill://acme/billing/refunds")).map((r) => [r.uri, r.mimeType])).toEqual([
      ["skill://acme/billing/refunds/SKILL.md", "text/markdown"],
      ["skill://acme/billing/refunds/examples", DIRECTORY_MIME_TYPE],
      ["skill://acme/billing/refunds/templates", DIRECTORY_MIME_TYPE],
      ["skill://acme/billing/refunds/scripts", DIRECTORY_MIME_TYPE],
    ]);
    expect(await read("skill://acme/billing/refunds/templates/regional")).toEqual([{ uri: "skill://acme/billing/refunds/templates/regional/eu.md", name: "eu.md", mimeType: "text/markdown", size: 2 }]);
    for (const uri of [refunds.uri, "skill://nowhere", "skill://acme/billing/refunds/"]) expect((await mcpError(call(server, "resources/directory/read", { uri }))).code).toBe(-32602);
  });

  it("refuses, with a sentence, a skill no host should load", () => {
    const base = { frontmatter: { name: "ok", description: "fine" }, body: "" };
    expect(() => skill({ ...base, frontmatter: { name: "Bad--Name", description: "x" } })).toThrow(/lowercase letters, digits and hyphens/);
    expect(() => skill({ ...base, frontmatter: { name: "ok", description: "" } })).toThrow(/description/);
    expect(() => skill({ ...base, files: { "../escape.md": "x" } })).toThrow(/no "\." or "\.\." segment/);
    expect(() => skill({ ...base, files: { "SKILL.md": "x" } })).toThrow(/leave it out/);
    expect(() => skill({ ...base, frontmatter: { name: "ok", description: "x", when: new Date(0) } })).toThrow(/must be a JSON value/);
    expect(() => skill({ ...base, prefix: "a b" })).toThrow(/prefix segment/);
    const many = Object.fromEntries(Array.from({ length: MAX_SKILL_FILES }, (_, i) => [`f${i}.md`, "x"]));
    expect(() => skill({ ...base, files: many })).toThrow(/at most 512 files/);
    expect(new CompiledServer({ name: "s", version: "1", use: [skills({ skills: [git, git] })] }).problem?.message).toMatch(/given twice/);
  });
});
