/**
 * The 2026-07-28 features as the v2 SDK client (`@modelcontextprotocol/client`) uses them:
 * multi round-trip requests answered by the client's own handlers across several rounds, a
 * tampered `requestState` refused, and `subscriptions/listen` hearing changes made by a handler
 * running for a different client — a 2025 session — through the topic Durable Objects.
 */
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../scripts/startServer.mjs";

let fixture: Awaited<ReturnType<typeof startServer>>;
let probes: Awaited<ReturnType<typeof startServer>>;
beforeAll(async () => {
  [fixture, probes] = await Promise.all([
    startServer({ entry: "test/conformance/fixtureWorker.ts", vars: { LOG_LEVEL: "error", REQUEST_STATE_SECRET: "an e2e secret of more than thirty-two characters" } }),
    startServer({ entry: "test/runtime/testWorker.ts", vars: { LOG_LEVEL: "error" } }),
  ]);
});
afterAll(() => Promise.all([fixture?.dispose(), probes?.dispose()]));

function modernClient(capabilities: Record<string, unknown> = {}) {
  return new ModernClient({ name: "v2-client", version: "2.4.0" }, { capabilities, versionNegotiation: { mode: { pin: "2026-07-28" } } });
}

describe("multi round-trip requests", () => {
  it("runs a handler over three rounds, the client answering each ask with its own handler", async () => {
    const client = modernClient({ elicitation: { form: {} } });
    const asked: string[] = [];
    client.setRequestHandler("elicitation/create", async (request) => {
      const message = String(request.params.message);
      asked.push(message);
      const content: Record<string, string> = message.includes("name") ? { name: "Ada" } : { color: "green" };
      return { action: "accept", content };
    });
    await client.connect(new ModernTransport(new URL("/mcp", fixture.url)));
    const result: any = await client.callTool({ name: "test_input_required_result_multi_round", arguments: {} });
    expect(result.content[0].text).toBe('{"name":"Ada"} likes {"color":"green"}');
    expect(asked).toEqual(["What is your name?", "What is your favourite colour?"]);
    await client.close();
  });

  it("asks for sampling, elicitation and roots in one round when the handler asks for them together", async () => {
    const client = modernClient({ elicitation: { form: {} }, sampling: {}, roots: {} });
    let rounds = 0;
    client.setRequestHandler("elicitation/create", async () => (rounds++, { action: "accept", content: { name: "Ada" } }));
    client.setRequestHandler("sampling/createMessage", async () => ({ role: "assistant", content: { type: "text", text: "Hi!" }, model: "test-model" }));
    client.setRequestHandler("roots/list", async () => ({ roots: [{ uri: "file:///work", name: "work" }] }));
    await client.connect(new ModernTransport(new URL("/mcp", fixture.url)));
    const result: any = await client.callTool({ name: "test_input_required_result_multiple_inputs", arguments: {} });
    expect(result.content[0].text).toBe('Name {"name":"Ada"}, greeting {"type":"text","text":"Hi!"}, roots [{"uri":"file:///work","name":"work"}]');
    expect(rounds).toBe(1);
    await client.close();
  });

  it("refuses a requestState the client altered, and one moved to other arguments", async () => {
    const client = modernClient({ elicitation: { form: {} } });
    await client.connect(new ModernTransport(new URL("/mcp", fixture.url)));
    const first: any = await client.callTool({ name: "test_input_required_result_tampered_state", arguments: {} }, { allowInputRequired: true });
    expect(first.resultType).toBe("input_required");
    expect(Object.keys(first.inputRequests)).toEqual(["confirm"]);
    const answer = { confirm: { action: "accept", content: { ok: true } } };
    await expect(
      client.callTool({ name: "test_input_required_result_tampered_state", arguments: {}, inputResponses: answer, requestState: `${first.requestState}-TAMPERED` } as never),
    ).rejects.toThrow(/requestState rejected: .*signature does not verify/);
    await expect(
      client.callTool({ name: "test_input_required_result_request_state", arguments: {}, inputResponses: answer, requestState: first.requestState } as never),
    ).rejects.toThrow(/requestState rejected: it was issued for a different request/);
    const honest: any = await client.callTool({ name: "test_input_required_result_tampered_state", arguments: {}, inputResponses: answer, requestState: first.requestState } as never);
    expect(honest.content[0].text).toBe('Confirmed: {"ok":true}');
    await client.close();
  });
});

describe("subscriptions/listen", () => {
  it("hears a resource update and a list change made by a 2025 session's handler", async () => {
    const listener = modernClient();
    const heard: { method: string; uri?: string }[] = [];
    let resolveBoth: () => void;
    const both = new Promise<void>((resolve) => (resolveBoth = resolve));
    const record = (method: string) => async (notification: { params?: object }) => {
      heard.push({ method, uri: (notification.params as { uri?: string } | undefined)?.uri });
      if (heard.length === 2) resolveBoth();
    };
    listener.setNotificationHandler("notifications/resources/updated", record("notifications/resources/updated"));
    listener.setNotificationHandler("notifications/tools/list_changed", record("notifications/tools/list_changed"));
    await listener.connect(new ModernTransport(new URL("/mcp", probes.url)));
    const subscription = await listener.listen({ resourceSubscriptions: ["test://counter"], toolsListChanged: true, promptsListChanged: true });
    // The test server can switch tools and has resources, but no prompts: that part is not honored.
    expect(subscription.honoredFilter).toEqual({ resourceSubscriptions: ["test://counter"], toolsListChanged: true });

    const session = new Client({ name: "v1-client", version: "1.32.2" });
    await session.connect(new StreamableHTTPClientTransport(new URL("/mcp", probes.url)));
    await session.callTool({ name: "touch", arguments: {} });
    await session.callTool({ name: "announce", arguments: {} });
    await both;
    expect(heard).toEqual([
      { method: "notifications/resources/updated", uri: "test://counter" },
      { method: "notifications/tools/list_changed", uri: undefined },
    ]);
    await subscription.close();
    await Promise.all([listener.close(), session.close()]);
  });
});
