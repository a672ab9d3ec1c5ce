import { describe, expect, it } from "vitest";
import { z } from "zod";
import { tool } from "../../shared/server/defineServer.ts";
import { homes } from "./homes.ts";
import { CompiledServer } from "../../shared/server/CompiledServer.ts";

const pad = tool({ name: "pad", description: "Keeps a note", input: z.object({ note: z.string() }), home: "user", handler: async () => "kept" });
const plain = tool({ name: "plain", description: "Keeps nothing", input: z.object({}), handler: async () => "done" });

describe("homes()", () => {
  it("is what a definition with a home of its own needs listed, named in the definition's problem", () => {
    expect(new CompiledServer({ name: "s", version: "1", tools: [pad] }).problem?.message).toMatch(/Some definitions keep their state in a home of their own \("home"\): add homes\(\) to "use"$/);
    const listed = new CompiledServer({ name: "s", version: "1", tools: [pad], use: [homes()] });
    expect(listed.problem).toBeUndefined();
    expect(listed.homes).toEqual({ user: true, handle: false });
    expect(new CompiledServer({ name: "s", version: "1", tools: [pad], use: [homes(), homes()] }).problem?.message).toMatch(/use: homes is listed twice/);
  });

  it("adds nothing a client sees: no capability advertised, no method", () => {
    const bare = new CompiledServer({ name: "s", version: "1", tools: [plain] });
    const listed = new CompiledServer({ name: "s", version: "1", tools: [plain], use: [homes()] });
    expect(listed.capabilities()).toEqual(bare.capabilities());
    expect(listed.discover(true)).toEqual(bare.discover(true));
  });

  it("brings no part for Workers here: the package's workerd variant adds it", () => {
    expect(homes().workers).toBeUndefined();
  });
});
