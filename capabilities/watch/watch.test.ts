import { describe, expect, it } from "vitest";
import { z } from "zod";
import { tool } from "../../shared/server/defineServer.ts";
import { watch } from "./watch.ts";
import { CompiledServer } from "../../shared/server/CompiledServer.ts";

const plain = tool({ name: "plain", description: "Changes nothing", input: z.object({}), handler: async () => "done" });

describe("watch()", () => {
  it("adds nothing a client sees, and is listed once", () => {
    const bare = new CompiledServer({ name: "s", version: "1", tools: [plain], listChanged: { tools: true } });
    const listed = new CompiledServer({ name: "s", version: "1", tools: [plain], listChanged: { tools: true }, use: [watch()] });
    expect(listed.problem).toBeUndefined();
    expect(listed.capabilities()).toEqual(bare.capabilities());
    expect(new CompiledServer({ name: "s", version: "1", use: [watch(), watch()] }).problem?.message).toMatch(/use: watch is listed twice/);
  });

  it("brings no part for Workers here: the package's workerd variant adds it", () => {
    expect(watch().workers).toBeUndefined();
  });
});
