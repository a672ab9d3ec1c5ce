import { describe, expect, it, vi } from "vitest";
import type { Broadcaster } from "../broadcast/Broadcaster.ts";
import { MemoryBroadcaster } from "../broadcast/MemoryBroadcaster.ts";
import { DEFAULT_CONFIG } from "../config/readConfig.ts";
import { ErrorCode } from "../errors/errorCodes.ts";
import type { JsonRpcRequest } from "../jsonrpc/messages.ts";
import { Logger } from "../log/Logger.ts";
import { META } from "../protocol/metaKeys.ts";
import { statelessPost } from "../routes/statelessPost.ts";
import { resource, resourceTemplate } from "../server/resource.ts";
import { MAX_LISTEN_RESOURCES, MAX_LISTEN_TASKS, OpenListens, planListen } from "./listen.ts";
import { RequestState } from "./RequestState.ts";
import type { StatelessHost } from "./statelessExchange.ts";
import { CompiledServer } from "../server/CompiledServer.ts";

const server = new CompiledServer({
  name: "listen-test",
  version: "1.0.0",
  resources: [
    resource({ uri: "test://counter", name: "counter", read: async () => "0" }),
    resource({ uri: "test://hidden", name: "hidden", enabled: false, read: async () => "" }),
  ],
  resourceTemplates: [resourceTemplate({ uriTemplate: "test://notes/{id}", name: "note", read: async () => "" })],
});

let nextId = 1;
function listenRequest(notifications: Record<string, unknown>): JsonRpcRequest {
  return {
    jsonrpc: "2.0",
    id: `L${nextId++}`,
    method: "subscriptions/listen",
    params: { notifications, _meta: { [META.protocolVersion]: "2026-07-28", [META.clientCapabilities]: {} } },
  };
}

const plan = (resourceSubscriptions: unknown) => planListen(listenRequest({ resourceSubscriptions }), server);

describe("planListen: task ids (tasks extension)", () => {
  const withTasks = { extensions: { "io.modelcontextprotocol/tasks": {} } };
  const planTasks = (taskIds: unknown, capabilities: Record<string, unknown> = withTasks) => planListen(listenRequest({ taskIds }), server, {}, capabilities);

  it("keeps each asked id once, to be looked up when the listen subscribes", () => {
    const planned = planTasks(["a".repeat(32), "b".repeat(32), "a".repeat(32)]);
    expect(planned.ok && planned.value.taskIds).toEqual(["a".repeat(32), "b".repeat(32)]);
  });

  it("refuses taskIds with -32021 naming the extension when the request did not declare it", () => {
    const planned = planTasks(["a".repeat(32)], {});
    expect(!planned.ok && planned.error.code).toBe(-32021);
    expect(!planned.ok && planned.error.data).toEqual({ requiredCapabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } } });
  });

  it("refuses ids that are not strings, and more than MAX_LISTEN_TASKS, with -32602", () => {
    for (const bad of ["x", [1], Array.from({ length: MAX_LISTEN_TASKS + 1 }, (_, i) => String(i))]) {
      const planned = planTasks(bad);
      expect(!planned.ok && planned.error.code).toBe(-32602);
    }
  });
});

describe("planListen: resource URIs", () => {
  it("accepts a listed resource's URI and one matching a template", () => {
    const planned = plan(["test://counter", "test://notes/7", "test://counter"]);
    expect(planned.ok && planned.value).toEqual({
      honored: { resourceSubscriptions: ["test://counter", "test://notes/7"] },
      topics: ["resource:test://counter", "resource:test://notes/7"],
      taskIds: [],
    });
  });

  it("refuses a URI the server cannot read with -32602 naming it, and subscribes to nothing", () => {
    const planned = plan(["test://counter", "junk://nothing"]);
    expect(planned.ok).toBe(false);
    if (planned.ok) return;
    expect(planned.error.code).toBe(ErrorCode.InvalidParams);
    expect(planned.error.message).toContain('"junk://nothing"');
  });

  it("refuses a resource switched off by default, as a read would", () => {
    const planned = plan(["test://hidden"]);
    expect(!planned.ok && planned.error.code).toBe(ErrorCode.InvalidParams);
  });

  it("refuses an over-long URI with a message that shows only its start", () => {
    const long = `test://notes/${"x".repeat(10_000)}`;
    const planned = plan([long]);
    expect(planned.ok).toBe(false);
    if (planned.ok) return;
    expect(planned.error.code).toBe(ErrorCode.InvalidParams);
    expect(planned.error.message).toContain("test://notes/xxx");
    expect(planned.error.message.length).toBeLessThan(400);
  });

  it("shows at most ~200 characters of an unknown URI", () => {
    const planned = plan([`junk://${"y".repeat(1_000)}`]);
    expect(!planned.ok && planned.error.message.length).toBeLessThan(400);
  });

  it("still caps the number of resources", () => {
    const planned = plan(Array.from({ length: MAX_LISTEN_RESOURCES + 1 }, (_, i) => `test://notes/${i}`));
    expect(!planned.ok && planned.error.code).toBe(ErrorCode.InvalidParams);
  });
});

/** A broadcaster whose subscriber streams the test ends by hand (as a dropped subscriber ends), or that fails to subscribe. */
class HandBroadcaster implements Broadcaster {
  readonly subscribers: ReadableStreamDefaultController<Uint8Array>[] = [];
  failing = false;
  async publish(): Promise<void> {}
  async subscribe(): Promise<ReadableStream<Uint8Array>> {
    if (this.failing) throw new Error("the topic is unreachable");
    return new ReadableStream({ start: (controller) => void this.subscribers.push(controller) });
  }
}

function depsWith(listens: OpenListens, broadcast: Broadcaster = new MemoryBroadcaster(65_536)): StatelessHost {
  const logger = new Logger("error", {}, () => {});
  return { runtime: { server, config: DEFAULT_CONFIG, logger, env: {}, broadcast }, requestState: new RequestState(undefined, 60_000), listens };
}

function post(deps: StatelessHost, notifications: Record<string, unknown> = { resourceSubscriptions: ["test://counter"] }): Promise<Response> {
  const message = listenRequest(notifications);
  const request = new Request("http://localhost/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "subscriptions/listen" },
    body: JSON.stringify(message),
  });
  return statelessPost(deps, request, { messages: [message], batch: false });
}

/** The JSON-RPC error a response carries. */
async function errorOf(response: Response): Promise<{ code: number; message: string }> {
  return ((await response.json()) as { error: { code: number; message: string } }).error;
}

describe("statelessPost: open listens", () => {
  it("refuses a listen with an unknown URI with -32602, and holds no slot for it", async () => {
    const listens = new OpenListens(2);
    const response = await post(depsWith(listens), { resourceSubscriptions: ["junk://x"] });
    expect(response.status).toBe(400);
    expect((await errorOf(response)).code).toBe(ErrorCode.InvalidParams);
    expect(listens.count).toBe(0);
  });

  it("refuses past the cap with 429 and Retry-After, and is back to zero once every listen ended", async () => {
    const listens = new OpenListens(2);
    const broadcast = new HandBroadcaster();
    const deps = depsWith(listens, broadcast);
    const first = await post(deps);
    const second = await post(deps);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(listens.count).toBe(2);

    const refused = await post(deps);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    const error = await errorOf(refused);
    expect(error.code).toBe(ErrorCode.ServerBusy);
    expect(error.message).toMatch(/at most 2 listen requests/);
    expect(listens.count).toBe(2);

    // The client leaves: its slot is free, and a new listen is admitted into it.
    await first.body!.cancel();
    await vi.waitFor(() => expect(listens.count).toBe(1));
    const third = await post(deps);
    expect(third.status).toBe(200);
    expect(listens.count).toBe(2);

    // The broadcaster drops both subscribers: each listen ends with its final result.
    for (const subscriber of broadcast.subscribers) subscriber.close();
    await vi.waitFor(() => expect(listens.count).toBe(0));
    const finals = await Promise.all([second, third].map((r) => r.text()));
    for (const text of finals) expect(text).toContain('"resultType":"complete"');

    // A subscription that fails is answered with an error and frees its slot too.
    broadcast.failing = true;
    const failed = await post(deps);
    expect((await errorOf(failed)).code).toBe(ErrorCode.InternalError);
    expect(listens.count).toBe(0);
  });

  it("releases a slot once, however often it is released", () => {
    const listens = new OpenListens(1);
    const slot = listens.acquire("a");
    expect(slot.ok).toBe(true);
    expect(listens.acquire("b").ok).toBe(false);
    if (!slot.ok) return;
    slot.value();
    slot.value();
    expect(listens.count).toBe(0);
    expect(listens.acquire("b").ok).toBe(true);
    expect(listens.count).toBe(1);
  });

  it("refuses a client past its own share with 429 naming MAX_LISTENS_PER_CLIENT, while another client is served", () => {
    const listens = new OpenListens(100, 2);
    const mine = [listens.acquire("greedy"), listens.acquire("greedy")];
    expect(mine.every((slot) => slot.ok)).toBe(true);
    const refused = listens.acquire("greedy");
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.error.status).toBe(429);
    expect(refused.error.headers).toEqual({ "retry-after": "5" });
    expect(refused.error.message).toMatch(/^This client holds 2 listen requests open, the most one client may \(MAX_LISTENS_PER_CLIENT\)/);
    expect(listens.acquire("modest").ok).toBe(true);
    // One closed: the greedy client has room again.
    if (mine[0]!.ok) mine[0]!.value();
    expect(listens.acquire("greedy").ok).toBe(true);
  });
});
