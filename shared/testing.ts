/**
 * `durable-mcp/testing`: an MCP client in memory for the unit tests of your own tools, prompts
 * and resources, in any revision, with elicitation, sampling and roots answered by the test, and
 * homes (`testHomes()`) that several clients share.
 *
 * @example
 * import { testClient } from "durable-mcp/testing";
 * import server from "./server.ts";
 *
 * const client = await testClient(server); // 2026-07-28; or { protocolVersion: "2025-11-25" }
 * const result = await client.callTool("countWords", { text: "one two" });
 * await client.close();
 */
export { type Progress, TEST_ISSUER, testClient, type TestClient, TestClientError, type TestClientOptions, type TestUser, type WireResult } from "./testing/testClient.ts";
export { testHomes, type TestHomes } from "./testing/testHomes.ts";
