/**
 * The server's own tools, tested through durable-mcp/testing: an MCP client in memory that
 * reaches the definition through the same core every runtime serves (validation included), with
 * no network and no port. `npm test` runs it.
 */
import { describe, expect, it } from "vitest";
import { testClient } from "durable-mcp/testing";
import server from "./server.ts";

describe("{{name}}", () => {
  it("lists its tools", async () => {
    const client = await testClient(server);
    const tools = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["countWords", "countPrimes"]);
    await client.close();
  });

  it("counts words, as a structured result", async () => {
    const client = await testClient(server);
    const result = await client.callTool("countWords", { text: "one two  three" });
    expect(result.structuredContent).toEqual({ words: 3, characters: 14 });
    await client.close();
  });

  it("counts primes and reports its progress", async () => {
    const client = await testClient(server);
    const progress: number[] = [];
    const result = await client.callTool("countPrimes", { upTo: 100_000 }, { onProgress: ({ progress: done }) => progress.push(done) });
    expect(result.content).toEqual([{ type: "text", text: "There are 9592 prime numbers up to 100000." }]);
    expect(progress).toEqual([10_000, 20_000, 30_000, 40_000, 50_000, 60_000, 70_000, 80_000, 90_000, 100_000]);
    await client.close();
  });

  it("refuses input outside its schema, as a tool error the model can read", async () => {
    const client = await testClient(server);
    const result = await client.callTool("countPrimes", { upTo: 1 });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain("upTo");
    await client.close();
  });

  it("says what a wrong argument should have been, so the model can fix its call", async () => {
    const client = await testClient(server);
    const result = await client.callTool("countPrimes", { upTo: "ten" });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain("expected number, received string");
    await client.close();
  });
});
