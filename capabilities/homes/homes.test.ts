import { describe, expect, it } from "vitest";
import { z } from "zod";
import { tool } from "../../shared/server/defineServer.ts";
import { homes } from "./homes.ts";
import { CompiledServer } from "../../shared/server/CompiledServer.ts";
import { DEFAULT_CONFIG } from "../../shared/config/readConfig.ts";
import { localHomes } from "../../shared/home/LocalHomesPart.ts";
import { Logger } from "../../shared/log/Logger.ts";
import { MemoryStorage } from "../../shared/storage/MemoryStorage.ts";
import { stubContext } from "../../shared/testing/testKit.ts";
import { LocalHomes } from "./LocalHomes.ts";

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

describe("homes() in a process", () => {
  const logger = new Logger("error");
  const config = DEFAULT_CONFIG;

  it("brings the host of a process's homes, found in the definition's use; a definition without homes gets none", () => {
    const server = new CompiledServer({ name: "s", version: "1", tools: [pad], use: [homes()] });
    const hosted = localHomes({ server, config, logger }, {});
    expect(hosted).toBeInstanceOf(LocalHomes);
    hosted?.close();
    const plainServer = new CompiledServer({ name: "s", version: "1", tools: [plain], use: [homes()] });
    expect(localHomes({ server: plainServer, config, logger }, {})).toBeUndefined();
  });

  it("keeps the homes in the stores it is given, by home name", async () => {
    const server = new CompiledServer({ name: "s", version: "1", tools: [pad], use: [homes()] });
    const stores = new Map<string, MemoryStorage>();
    const storeFor = (name: string) => stores.get(name) ?? stores.set(name, new MemoryStorage()).get(name)!;
    const hosted = localHomes({ server, config, logger, storeFor }, {})!;
    try {
      await hosted.run({ kind: "user", owner: "alice" }, { method: "tools/call", params: { name: "pad", arguments: { note: "milk" } } }, stubContext());
      expect([...stores.keys()]).toEqual(["user:alice"]);
    } finally {
      hosted.close();
    }
  });
});
