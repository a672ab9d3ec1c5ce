/**
 * The tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`) on the 2026-07-28 stateless
 * path of `/mcp`, over real HTTP, on whichever runtime `startServer` starts (workerd; Deno with
 * RUNTIME=deno — the contract suite runs this file against both, so the Durable Object host and
 * the in-process host answer alike). Driven with raw requests against the conformance fixture's
 * task tools (`test/conformance/taskFixture.ts`), the wire written out rather than through an SDK,
 * because no SDK client speaks the extension yet:
 *
 * - the extension advertised by `server/discover`, and gated per request (-32021 without it);
 * - a task's life as a client polls it: `CreateTaskResult`, `working` with the handler's progress
 *   as `statusMessage`, then `completed` with the result, `failed` with the JSON-RPC error, or
 *   `completed` with `isError` for a tool error;
 * - `tasks/cancel` (at once, and again), `tasks/update` answering an `input_required` task (an
 *   elicitation; a sampling request and a roots request at once), and a multi round-trip request
 *   that goes on as a task;
 * - `subscriptions/listen` with `taskIds`: the acknowledgement names only the tasks found, and
 *   `notifications/tasks` carry each change as `tasks/get` would show it; asking for `taskIds`
 *   without declaring the extension is -32021;
 * - the refusals: unknown and malformed ids (-32602), the removed `tasks/result` and `tasks/list`
 *   (-32601), and an `Mcp-Name` that is not the task id (-32020).
 *
 * Timing: nothing waits a fixed time. Tasks are polled every `POLL_MS` until a bounded deadline
 * (`DEADLINE_MS`), and a listen's next event is awaited for `EVENT_MS`, both far longer than the
 * fixture's tools take, so a busy 2-core machine passes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../scripts/startServer.mjs";
import { BOTH, postJson } from "../support/httpSession.ts";
import { startNwsFixtureServer } from "../support/nwsFixtureServer.mjs";
import { SseReader } from "../support/SseReader.ts";

const MODERN = "2026-07-28";
const TASKS = "io.modelcontextprotocol/tasks";
/** How often a test polls `tasks/get`: faster than the server's suggested `pollIntervalMs`, to see short-lived states. */
const POLL_MS = 100;
/** How long a poll waits for a status before failing; the slowest fixture tool polled here takes 4 s. */
const DEADLINE_MS = 30_000;
/** The vitest timeout of a test that polls. */
const POLLING_TEST = { timeout: 60_000 };
const TERMINAL = new Set(["completed", "failed", "cancelled"]);
/** How long a listen stream may take to bring its next event; slow_compute reports progress every second. */
const EVENT_MS = 15_000;
const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

let server: Awaited<ReturnType<typeof startServer>>;
beforeAll(async () => {
  server = await startServer({ entry: "test/conformance/fixtureWorker.ts", vars: { LOG_LEVEL: "error", REQUEST_STATE_SECRET: "an e2e secret of more than thirty-two characters" } });
});
afterAll(() => server?.dispose());

type Json = Record<string, any>;
interface Answer {
  status: number;
  /** The JSON-RPC response, its `id` checked against the request's. */
  body: Json;
}

interface SendOptions {
  /** Whether the request declares the extension. */
  tasks: boolean;
  headers?: Record<string, string>;
  /** The server asked; the conformance fixture unless said. */
  to?: { url: string };
  /** Client capabilities beyond elicitation (and the extension). */
  capabilities?: Json;
}

let nextId = 1;
/**
 * Sends one 2026-07-28 request: `_meta` with the protocol version, client info and capabilities
 * (the extension declared when `tasks`), and the routing headers a client sends — `Mcp-Method`,
 * and `Mcp-Name` as the tool name (`tools/call`) or the task id (`tasks/get|update|cancel`),
 * unless `headers` replaces them. The request's id, and the response unread.
 */
async function send(method: string, params: Json, { tasks, headers = {}, to = server, capabilities: more = {} }: SendOptions): Promise<{ id: number; response: Response }> {
  const id = nextId++;
  const capabilities = { elicitation: {}, ...more, ...(tasks ? { extensions: { [TASKS]: {} } } : {}) };
  const _meta = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": { name: "tasks-e2e", version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": capabilities,
  };
  const name = method === "tools/call" ? params.name : ["tasks/get", "tasks/update", "tasks/cancel"].includes(method) ? params.taskId : undefined;
  const response = await postJson(`${to.url}/mcp`, { jsonrpc: "2.0", id, method, params: { ...params, _meta } }, {
    headers: {
      "content-type": "application/json",
      accept: BOTH,
      "mcp-protocol-version": MODERN,
      "mcp-method": method,
      ...(typeof name === "string" ? { "mcp-name": name } : {}),
      ...headers,
    },
  });
  return { id, response };
}

/** One 2026-07-28 request (`send`), answered with JSON. */
async function rpc(method: string, params: Json, options: SendOptions): Promise<Answer> {
  const { id, response } = await send(method, params, options);
  const text = await response.text();
  expect(response.headers.get("content-type"), `${method}: ${text}`).toContain("application/json");
  const body = JSON.parse(text);
  expect(body, `${method}: the id is echoed`).toMatchObject({ jsonrpc: "2.0", id });
  return { status: response.status, body };
}

/** A successful response's result. */
function resultOf({ status, body }: Answer): Json {
  expect(body.error, JSON.stringify(body.error)).toBeUndefined();
  expect(status).toBe(200);
  return body.result;
}

/** Asserts a JSON-RPC error with `code` (and HTTP `status`, when given); returns the error object. */
function errorOf({ status, body }: Answer, code: number, httpStatus?: number): Json {
  expect(body.result, JSON.stringify(body.result)).toBeUndefined();
  expect(body.error).toMatchObject({ code });
  expect(typeof body.error.message).toBe("string");
  if (httpStatus !== undefined) expect(status).toBe(httpStatus);
  return body.error;
}

const call = (name: string, args: Json, tasks = true, extra: Json = {}) => rpc("tools/call", { name, arguments: args, ...extra }, { tasks });
const getTask = async (taskId: string, options: SendOptions = { tasks: true }) => resultOf(await rpc("tasks/get", { taskId }, options));

/** Calls a task tool; the `CreateTaskResult`. */
async function createTask(name: string, args: Json): Promise<Json> {
  const created = resultOf(await call(name, args));
  expect(created, JSON.stringify(created)).toMatchObject({ resultType: "task", taskId: expect.stringMatching(/^[0-9a-f]{32}$/) });
  return created;
}

/**
 * Polls `tasks/get` until `until(task)` holds or the task is terminal (so a task that ends
 * another way is reported by the caller's assertion, not by a timeout); `seen` gets every answer.
 */
async function pollUntil(taskId: string, until: (task: Json) => boolean, timeoutMs = DEADLINE_MS, seen: Json[] = [], options?: SendOptions): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const task = await getTask(taskId, options);
    seen.push(task);
    expect(task).toMatchObject({ resultType: "complete", taskId });
    if (until(task) || TERMINAL.has(task.status)) return task;
    if (Date.now() > deadline) throw new Error(`task ${taskId} still ${task.status} after ${timeoutMs} ms: ${JSON.stringify(task)}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
const terminal = (taskId: string, seen: Json[] = []) => pollUntil(taskId, () => false, DEADLINE_MS, seen);

/** An ack of `tasks/update` or `tasks/cancel`: `resultType: "complete"`, and no task fields. */
function expectAck(answer: Answer) {
  const ack = resultOf(answer);
  expect(ack.resultType).toBe("complete");
  expect(Object.keys(ack).filter((key) => key !== "_meta")).toEqual(["resultType"]);
}

/** A listen request's stream, open after its acknowledgement: what it acknowledged, and the reader of what follows. */
interface Listening {
  id: number;
  /** The acknowledgement's `notifications`: the subset of the request the server honors. */
  acknowledged: Json;
  reader: SseReader;
}

/** Opens `subscriptions/listen` for `taskIds`, the extension declared; the caller cancels its reader. */
async function listenFor(taskIds: string[]): Promise<Listening> {
  const { id, response } = await send("subscriptions/listen", { notifications: { taskIds } }, { tasks: true });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/event-stream");
  const reader = new SseReader(response.body!);
  const ack = await reader.nextMessage(EVENT_MS);
  expect(ack).toMatchObject({ jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: { _meta: { [SUBSCRIPTION_ID]: id } } });
  return { id, acknowledged: ack.params.notifications, reader };
}

/** A `DetailedTask` without what frames it: a result's `resultType` and `_meta`, or a notification's `_meta`. */
const taskOnly = ({ resultType: _type, _meta, ...task }: Json) => task;

const isIso = (value: unknown) => typeof value === "string" && new Date(value).toISOString() === value;
const isPositiveInteger = (value: unknown) => Number.isInteger(value) && (value as number) > 0;

describe("declaring the extension", () => {
  it("server/discover advertises it under capabilities.extensions", async () => {
    const discovered = resultOf(await rpc("server/discover", {}, { tasks: true }));
    expect(discovered.capabilities.extensions?.[TASKS]).toEqual({});
    expect(discovered.capabilities.tasks, "no v1-style capabilities.tasks").toBeUndefined();
  });

  it("without it, an optional task tool answers in the request, a required one is -32021, and tasks/get is -32021", async () => {
    const plain = resultOf(await call("slow_compute", { seconds: 0, label: "plain" }, false));
    expect(plain).toMatchObject({ resultType: "complete", content: [{ type: "text", text: expect.stringContaining("completed after 0 seconds") }] });
    expect(plain.taskId).toBeUndefined();

    const refused = errorOf(await call("failing_job", {}, false), -32021, 400);
    expect(refused.data.requiredCapabilities.extensions[TASKS]).toBeDefined();

    // Gated before any lookup: a well-formed id and one that could never be a task alike.
    for (const taskId of ["0123456789abcdef0123456789abcdef", "gate-test"]) {
      const gated = errorOf(await rpc("tasks/get", { taskId }, { tasks: false }), -32021, 400);
      expect(gated.data.requiredCapabilities.extensions[TASKS]).toBeDefined();
    }
  });
});

describe("a task's life", () => {
  it("slow_compute: a CreateTaskResult at once, found at once, working with its progress, then completed", POLLING_TEST, async () => {
    const answer = await call("slow_compute", { seconds: 4, label: "x" });
    const created = resultOf(answer);
    expect(created).toMatchObject({ resultType: "task", status: "working", taskId: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(isIso(created.createdAt) && isIso(created.lastUpdatedAt), JSON.stringify(created)).toBe(true);
    expect(isPositiveInteger(created.ttlMs) && isPositiveInteger(created.pollIntervalMs), JSON.stringify(created)).toBe(true);
    for (const key of ["result", "content", "error", "inputRequests", "requestState", "task", "ttl", "pollInterval"]) expect(created, key).not.toHaveProperty(key);

    // Stored before it was answered: the very next request finds it.
    const found = await getTask(created.taskId);
    expect(found).toMatchObject({ resultType: "complete", taskId: created.taskId, createdAt: created.createdAt });
    expect(["working", "completed"]).toContain(found.status);

    const seen: Json[] = [found];
    const done = await terminal(created.taskId, seen);
    expect(done).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: expect.stringContaining("completed after 4 seconds") }] } });
    expect(done.result.resultType).toBe("complete");
    // ctx.progress becomes the status message. Four seconds of work polled every POLL_MS: some
    // working answer carries one (a completed task keeps none: TaskHost clears it on completion).
    const messages = seen.map((task) => task.statusMessage).filter((message) => message !== undefined);
    expect(messages.some((message) => /^x: [1-4] of 4 seconds$/.test(message)), JSON.stringify(messages)).toBe(true);
  });

  it("protocol_error_job ends failed with its JSON-RPC error; failing_job's tool error ends completed with isError", POLLING_TEST, async () => {
    const [faulty, failing] = await Promise.all([createTask("protocol_error_job", {}), createTask("failing_job", {})]);
    const [failed, completed] = await Promise.all([terminal(faulty.taskId), terminal(failing.taskId)]);
    expect(failed).toMatchObject({ status: "failed", error: { code: -32603, message: expect.any(String) } });
    expect(failed).not.toHaveProperty("result");
    expect(completed).toMatchObject({ status: "completed", result: { isError: true, content: [{ type: "text", text: expect.stringContaining("The job failed") }] } });
    expect(completed).not.toHaveProperty("error");
  });
});

describe("steering a task", () => {
  it("tasks/cancel acks with no task fields, the task is cancelled at once, and cancelling again acks too", POLLING_TEST, async () => {
    const { taskId } = await createTask("slow_compute", { seconds: 60, label: "cancel-me" });
    expectAck(await rpc("tasks/cancel", { taskId }, { tasks: true }));
    expect(await getTask(taskId)).toMatchObject({ status: "cancelled" });
    expectAck(await rpc("tasks/cancel", { taskId }, { tasks: true }));
    // Whatever the aborted handler did afterwards was discarded.
    const after = await getTask(taskId);
    expect(after.status).toBe("cancelled");
    expect(after).not.toHaveProperty("result");
  });

  it("confirm_delete waits in input_required; a malformed answer is refused, the right one resumes it to completed", POLLING_TEST, async () => {
    const { taskId } = await createTask("confirm_delete", { filename: "a.txt" });
    const waiting = await pollUntil(taskId, (task) => task.status === "input_required");
    expect(waiting.status).toBe("input_required");
    const keys = Object.keys(waiting.inputRequests);
    expect(keys).toHaveLength(1);
    const key = keys[0]!;
    expect(waiting.inputRequests[key]).toMatchObject({ method: "elicitation/create", params: { message: "Delete 'a.txt'?" } });

    // An answer that cannot answer an elicitation: refused, and nothing taken.
    errorOf(await rpc("tasks/update", { taskId, inputResponses: { [key]: { action: "maybe" } } }, { tasks: true }), -32602);
    const still = await getTask(taskId);
    expect(still.status).toBe("input_required");
    expect(Object.keys(still.inputRequests)).toEqual([key]);

    expectAck(await rpc("tasks/update", { taskId, inputResponses: { [key]: { action: "accept", content: { confirm: true } } } }, { tasks: true }));
    const done = await terminal(taskId);
    expect(done).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "deleted 'a.txt'" }] } });
  });

  it("test_tool_with_task asks in the request first (input_required), then goes on as a task that uses the answer", POLLING_TEST, async () => {
    const first = resultOf(await call("test_tool_with_task", {}));
    expect(first).toMatchObject({ resultType: "input_required", inputRequests: { user_name: { method: "elicitation/create" } } });
    expect(first).not.toHaveProperty("taskId");

    const answers = { user_name: { action: "accept", content: { name: "Ada" } } };
    const created = resultOf(await call("test_tool_with_task", {}, true, { inputResponses: answers, ...(first.requestState === undefined ? {} : { requestState: first.requestState }) }));
    expect(created).toMatchObject({ resultType: "task", taskId: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(created).not.toHaveProperty("requestState");
    expect(created).not.toHaveProperty("inputRequests");

    const done = await terminal(created.taskId);
    expect(done).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: expect.stringContaining("Ada") }] } });
  });
});

describe("listening for tasks (subscriptions/listen with taskIds)", () => {
  it("acknowledges only the task found, then tells each change: working with its progress, then completed as tasks/get shows it", POLLING_TEST, async () => {
    const { taskId } = await createTask("slow_compute", { seconds: 5, label: "heard" });
    const { id, acknowledged, reader } = await listenFor(["0123456789abcdef0123456789abcdef", taskId, "not-a-task-id"]);
    try {
      expect(acknowledged).toEqual({ taskIds: [taskId] });
      const heard: Json[] = [];
      while (!TERMINAL.has(heard.at(-1)?.status)) {
        const message = await reader.nextMessage(EVENT_MS);
        expect(message).toMatchObject({ jsonrpc: "2.0", method: "notifications/tasks", params: { taskId, _meta: { [SUBSCRIPTION_ID]: id } } });
        expect(message).not.toHaveProperty("id");
        heard.push(message.params);
      }
      // Only changes from the listen on: the progress still to come (the first at one second in), then the end.
      const working = heard.slice(0, -1);
      expect(working.length, JSON.stringify(heard)).toBeGreaterThan(0);
      expect(working.every((task) => task.status === "working")).toBe(true);
      // ctx.progress becomes the status message: each second once, in order.
      const seconds = working.map((task) => Number(/^heard: ([1-5]) of 5 seconds$/.exec(task.statusMessage)?.[1] ?? Number.NaN));
      seconds.forEach((second, i) => expect(second, JSON.stringify(working)).toBeGreaterThan(i === 0 ? 0 : seconds[i - 1]!));

      // The extension: "a complete DetailedTask for the current status, identical to what tasks/get would have returned".
      const done = heard.at(-1)!;
      expect(done).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: expect.stringContaining('"heard" completed after 5 seconds') }] } });
      expect(done).not.toHaveProperty("resultType");
      expect(taskOnly(done)).toEqual(taskOnly(await getTask(taskId)));
    } finally {
      await reader.cancel();
    }
  });

  it("acknowledges none of unknown ids, and refuses taskIds without the extension declared with -32021", async () => {
    const { acknowledged, reader } = await listenFor(["0123456789abcdef0123456789abcdef"]);
    await reader.cancel();
    expect(acknowledged).toEqual({ taskIds: [] });

    // Refused before any lookup: a task that exists is no exception.
    const { taskId } = await createTask("slow_compute", { seconds: 0, label: "gated" });
    const refused = errorOf(await rpc("subscriptions/listen", { notifications: { taskIds: [taskId] } }, { tasks: false }), -32021, 400);
    expect(refused.data.requiredCapabilities.extensions[TASKS]).toBeDefined();
  });
});

describe("refusals, with the extension declared", () => {
  it("tasks/get of an unknown or malformed id is -32602", async () => {
    for (const taskId of ["0123456789abcdef0123456789abcdef", "not-a-task-id"]) errorOf(await rpc("tasks/get", { taskId }, { tasks: true }), -32602);
  });

  it("tasks/result and tasks/list, removed by the extension, are -32601", async () => {
    errorOf(await rpc("tasks/result", { taskId: "0123456789abcdef0123456789abcdef" }, { tasks: true }), -32601);
    errorOf(await rpc("tasks/list", {}, { tasks: true }), -32601);
  });

  it("malformed task requests get 400 with the code that names the fault, never a 5xx", async () => {
    const unknown = "0123456789abcdef0123456789abcdef";
    const refusals: [method: string, params: Json, mcpName: string | undefined, code: number][] = [
      ["tasks/get", {}, undefined, -32020], // no Mcp-Name: the header is required
      ["tasks/get", { taskId: 7 }, "7", -32020], // a taskId that is not a string cannot match its header
      ["tasks/cancel", { taskId: null }, "null", -32020],
      ["tasks/get", { taskId: { id: unknown } }, unknown, -32020],
      ["tasks/get", { taskId: "a".repeat(10_000) }, "a".repeat(10_000), -32602], // well-formed, but no such task
      ["tasks/update", { taskId: unknown }, unknown, -32602], // no inputResponses
      ["tasks/update", { taskId: unknown, inputResponses: [{ action: "accept" }] }, unknown, -32602],
      ["tasks/update", { taskId: unknown, inputResponses: "accept" }, unknown, -32602],
    ];
    for (const [method, params, mcpName, code] of refusals) {
      const headers: Record<string, string> = mcpName === undefined ? {} : { "mcp-name": mcpName };
      const { id, response } = await send(method, params, { tasks: true, headers });
      const body = (await response.json()) as Json;
      const what = `${method} ${JSON.stringify(params).slice(0, 80)}`;
      expect(response.status, what).toBe(400);
      expect(body, what).toMatchObject({ jsonrpc: "2.0", id, error: { code } });
      // A long id is not echoed whole.
      expect(body.error.message.length, what).toBeLessThan(400);
    }
  });

  it("a call too large to store as a task is refused with -32602 naming the limit, and no task is made", async () => {
    const { status, body } = await call("slow_compute", { seconds: 0, label: "x".repeat(1_100_000) });
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: -32602, message: expect.stringMatching(/more than the 1048576 bytes a task stores/) });
  });

  it("tasks/get whose Mcp-Name is not its taskId is refused with 400 and -32020, not answered", POLLING_TEST, async () => {
    const { taskId } = await createTask("slow_compute", { seconds: 60, label: "routing" });
    try {
      errorOf(await rpc("tasks/get", { taskId }, { tasks: true, headers: { "mcp-name": "some-other-task" } }), -32020, 400);
      // The same request with the matching header is answered.
      expect(await getTask(taskId)).toMatchObject({ taskId });
    } finally {
      expectAck(await rpc("tasks/cancel", { taskId }, { tasks: true }));
    }
  });
});

describe("the example server's alertSweep, as deployed (wrangler.toml binds MCP_TASK)", () => {
  let example: Awaited<ReturnType<typeof startServer>>;
  let nws: Awaited<ReturnType<typeof startNwsFixtureServer>>;
  beforeAll(async () => {
    nws = await startNwsFixtureServer();
    example = await startServer({ vars: { LOG_LEVEL: "error", NWS_BASE_URL: nws.url } });
  });
  afterAll(async () => {
    await example?.dispose();
    await nws?.close();
  });

  const SWEEP = { name: "alertSweep", arguments: { states: ["CA", "ny", "TX"] } };
  const SUMMARY = "CA: 1 active (Wind Advisory)\nNY: no active alerts\nTX: no active alerts";

  it("is a task for a client that declares the extension, and a plain call for one that does not", POLLING_TEST, async () => {
    const plain = resultOf(await rpc("tools/call", SWEEP, { tasks: false, to: example }));
    expect(plain).toMatchObject({ resultType: "complete", content: [{ type: "text", text: SUMMARY }] });

    const created = resultOf(await rpc("tools/call", SWEEP, { tasks: true, to: example }));
    expect(created).toMatchObject({ resultType: "task", status: "working", ttlMs: 3_600_000, pollIntervalMs: 2_000 });
    const task = await pollUntil(created.taskId, () => false, DEADLINE_MS, [], { tasks: true, to: example });
    expect(task).toMatchObject({ taskId: created.taskId, status: "completed", result: { content: [{ type: "text", text: SUMMARY }] } });
    expect(nws.requests.filter((request) => request.startsWith("GET /alerts/active?area="))).toHaveLength(6);
  });
});

describe("asks inside a task: ctx.sample and ctx.listRoots", () => {
  let probes: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    probes = await startServer({ entry: "test/runtime/testWorker.ts", vars: { LOG_LEVEL: "error" } });
  });
  afterAll(() => probes?.dispose());

  /** The extension, sampling and roots declared, to the probes server. */
  const options = (): SendOptions => ({ tasks: true, to: probes, capabilities: { sampling: {}, roots: {} } });

  it("wait together in input_required, and one tasks/update answering both completes the task", POLLING_TEST, async () => {
    const created = resultOf(await rpc("tools/call", { name: "task_consults", arguments: { topic: "tides" } }, options()));
    expect(created).toMatchObject({ resultType: "task", status: "working" });
    const { taskId } = created;
    const task = await pollUntil(taskId, ({ status }) => status === "input_required", DEADLINE_MS, [], options());
    expect(task.status, JSON.stringify(task)).toBe("input_required");
    const asks = Object.entries(task.inputRequests as Record<string, Json>);
    expect(asks.map(([, ask]) => ask.method).sort()).toEqual(["roots/list", "sampling/createMessage"]);
    const sampleKey = asks.find(([, ask]) => ask.method === "sampling/createMessage")![0];
    const rootsKey = asks.find(([, ask]) => ask.method === "roots/list")![0];
    expect(task.inputRequests[sampleKey].params).toMatchObject({ messages: [{ role: "user", content: { type: "text", text: "One line on tides" } }], maxTokens: 50 });

    const inputResponses = {
      [sampleKey]: { role: "assistant", content: { type: "text", text: "Tides follow the moon." }, model: "test-model" },
      [rootsKey]: { roots: [{ uri: "file:///work", name: "work" }] },
    };
    expectAck(await rpc("tasks/update", { taskId, inputResponses }, options()));
    const done = await pollUntil(taskId, () => false, DEADLINE_MS, [], options());
    expect(done).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "test-model said: Tides follow the moon.; roots: file:///work" }] } });
  });
});
