/**
 * `PgBroadcaster` on a real PostgreSQL, between two processes (two connection pools, each with a
 * broadcaster of its own): a change published through one reaches the subscribers of both, in
 * order for one topic; a message too large for a notification travels as a row, and the rows are
 * gone once their publisher closes; one past the bound is refused with a sentence; a subscriber
 * whose signal aborts hears no more and the process stops listening; a subscriber that stops
 * reading is ended at its bound while another keeps receiving; after the listening connection
 * drops, or when a process holds more notifications than its bound while it reads a stored
 * message, list and resource listeners are told to read again, a task's listener is ended, and what
 * is published after is heard; and a 2026-07-28 `subscriptions/listen` served by one process hears
 * a list change made through the other, through the very calls the handlers' context makes.
 */
import postgres, { type Sql } from "postgres";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { PgBroadcaster } from "../../capabilities/watch/postgres/PgBroadcaster.ts";
import { migrate } from "../../postgres/migrate.ts";
import { MAX_PAYLOAD_BYTES } from "../../postgres/PgChannel.ts";
import { resourceTopic, taskTopic } from "../../shared/broadcast/Broadcaster.ts";
import { LIST_CHANGED_METHOD } from "../../shared/definition/ListKind.ts";
import type { JsonRpcMessage } from "../../shared/jsonrpc/messages.ts";
import { notification } from "../../shared/jsonrpc/messages.ts";
import { Logger } from "../../shared/log/Logger.ts";
import { listen } from "../../shared/stateless/listen.ts";
import { type FreshDatabase, freshDatabase } from "../support/freshDatabase.ts";
import { Lines } from "../support/Lines.ts";

const MAX_BYTES = 65_536;

let database: FreshDatabase;
let one: Sql;
let other: Sql;
const opened: PgBroadcaster[] = [];

beforeAll(async () => {
  database = await freshDatabase();
  one = postgres(database.url, { max: 3, onnotice: () => {} });
  other = postgres(database.url, { max: 3, onnotice: () => {} });
  await migrate(one);
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((broadcaster) => broadcaster.close()));
});
afterAll(async () => {
  await Promise.all([one?.end(), other?.end()]);
  await database?.drop();
});

/** A broadcaster on `sql`, closed after the test. */
function broadcaster(sql: Sql, maxBytes = MAX_BYTES): PgBroadcaster {
  const made = new PgBroadcaster(sql, { maxBytes });
  opened.push(made);
  return made;
}

const storedRows = async () => Number((await one`SELECT count(*)::integer AS n FROM mcp_change_messages`)[0]!.n);

it("delivers a change published through one process to subscribers in both, in order for one topic", async () => {
  const [here, there] = [broadcaster(one), broadcaster(other)];
  const stop = new AbortController();
  const far = new Lines(await there.subscribe("tools", stop.signal));
  const near = new Lines(await here.subscribe("tools", stop.signal));
  const unrelated = new Lines(await there.subscribe("prompts", stop.signal));
  for (let i = 1; i <= 20; i++) await here.publish("tools", { n: i });
  const expected = Array.from({ length: 20 }, (_, i) => ({ n: i + 1 }));
  expect(await far.take(20)).toEqual(expected);
  expect(await near.take(20)).toEqual(expected);
  await there.publish("prompts", { last: true });
  expect(await unrelated.take(1)).toEqual([{ last: true }]);
  stop.abort();
});

it("carries a message too large for a notification as a row, in its place in the order, and leaves no row once closed", async () => {
  const [here, there] = [broadcaster(one), broadcaster(other)];
  const stop = new AbortController();
  // A URI of three-byte characters: a topic and message over the payload's bound in UTF-8 only.
  const uri = `file:///${"☃".repeat(MAX_PAYLOAD_BYTES / 3)}`;
  const far = new Lines(await there.subscribe(resourceTopic(uri), stop.signal));
  const small = new Lines(await there.subscribe("tools", stop.signal));
  const result = { status: "completed", text: "x".repeat(20_000) };
  await here.publish(resourceTopic(uri), { before: true });
  await here.publish(resourceTopic(uri), { uri });
  await here.publish(resourceTopic(uri), result);
  await here.publish(resourceTopic(uri), { after: true });
  await here.publish("tools", result);
  expect(await small.take(1)).toEqual([result]);
  expect(await far.take(4)).toEqual([{ before: true }, { uri }, result, { after: true }]);
  // The topic alone is over the payload's bound: those four were stored, and the large result on another topic.
  expect(await storedRows()).toBe(5);
  await expect(here.publish("tools", { text: "y".repeat(MAX_BYTES) })).rejects.toThrow(`A change on "tools" is ${MAX_BYTES + 11} bytes, more than the ${MAX_BYTES} a listener may hold unread (MAX_QUEUE_BYTES): publish a smaller message`);
  stop.abort();
  await here.close();
  expect(await storedRows()).toBe(0);
});

it("stops delivering to a subscriber whose signal aborts, and stops listening when none is left", async () => {
  const [here, there] = [broadcaster(one), broadcaster(other)];
  expect(there.listening).toBe(false);
  const leaving = new AbortController();
  const staying = new AbortController();
  const left = new Lines(await there.subscribe("tools", leaving.signal));
  const kept = new Lines(await there.subscribe("tools", staying.signal));
  expect(there.listening).toBe(true);
  await here.publish("tools", { n: 1 });
  expect(await left.take(1)).toEqual([{ n: 1 }]);
  leaving.abort();
  expect(there.count("tools")).toBe(1);
  await here.publish("tools", { n: 2 });
  expect(await kept.take(2)).toEqual([{ n: 1 }, { n: 2 }]);
  expect(await left.rest()).toEqual([]);
  staying.abort();
  expect(there.count("tools")).toBe(0);
  expect(there.listening).toBe(false);
  // Listening again for a new subscriber, which hears only what is published after.
  await here.publish("tools", { n: 3 });
  const again = new AbortController();
  const late = new Lines(await there.subscribe("tools", again.signal));
  await here.publish("tools", { n: 4 });
  expect(await late.take(1)).toEqual([{ n: 4 }]);
  again.abort();
});

it("ends a subscriber that falls more than its bound behind, while another keeps receiving", async () => {
  const message = (i: number) => ({ i, pad: "p".repeat(90) });
  const bound = JSON.stringify(message(0)).length * 3 + 3;
  const [here, there] = [broadcaster(one), broadcaster(other, bound)];
  const stop = new AbortController();
  const slow = await there.subscribe("tools", stop.signal);
  const fast = new Lines(await there.subscribe("tools", stop.signal));
  for (let i = 0; i < 6; i++) {
    await here.publish("tools", message(i));
    expect(await fast.take(1)).toEqual([message(i)]);
  }
  expect(there.count("tools")).toBe(1);
  // A close, not an error: the slow reader gets what fitted, then an ordinary end.
  expect(await new Lines(slow).rest()).toEqual([message(0), message(1), message(2)]);
  stop.abort();
});

it("tells list and resource listeners to read again after its connection drops, ends a task's, and hears what comes after", async () => {
  const [here, there] = [broadcaster(one), broadcaster(other)];
  const stop = new AbortController();
  const tools = new Lines(await there.subscribe("tools", stop.signal));
  const readme = new Lines(await there.subscribe(resourceTopic("file:///readme"), stop.signal));
  const task = new Lines(await there.subscribe(taskTopic("t1"), stop.signal));
  const ended = await one`
    SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
    WHERE datname = current_database() AND pid <> pg_backend_pid() AND query ILIKE 'listen "mcp_changes"%'`;
  expect(ended.length).toBe(1);
  expect(await tools.take(1)).toEqual([{ jsonrpc: "2.0", method: "notifications/tools/list_changed" }]);
  expect(await readme.take(1)).toEqual([{ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "file:///readme" } }]);
  expect(await task.rest()).toEqual([]);
  await here.publish("tools", { after: true });
  expect(await tools.take(1)).toEqual([{ after: true }]);
  stop.abort();
});

it("carries a list change made through one process to a subscriptions/listen served by the other", async () => {
  const [here, there] = [broadcaster(one), broadcaster(other)];
  const sent: JsonRpcMessage[] = [];
  let replied: JsonRpcMessage | undefined;
  const arrived = async (count: number) => {
    for (let i = 0; sent.length < count; i++) {
      if (i > 1_500) throw new Error(`the listener got ${sent.length} of ${count} messages: ${JSON.stringify(sent)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  const client = new AbortController();
  await listen(
    { broadcast: there, logger: new Logger("error"), tasks: undefined },
    {
      request: { jsonrpc: "2.0", id: 7, method: "subscriptions/listen", params: { notifications: { toolsListChanged: true } } },
      plan: { honored: { toolsListChanged: true }, topics: ["tools"], taskIds: [] },
      outlet: {
        reply: (message) => void (replied = message),
        notify: async (message) => void sent.push(message),
        drop: () => {},
      },
      cancel: client.signal,
    },
  );
  await arrived(1);
  expect(sent[0]).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
  // What `ctx.listChanged("tools")` publishes in a 2026-07-28 request, made in the other process.
  await here.publish("tools", notification(LIST_CHANGED_METHOD.tools));
  await arrived(2);
  expect(sent[1]).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: { "io.modelcontextprotocol/subscriptionId": 7 } } });
  client.abort();
  expect(replied).toBeUndefined();
  expect(there.count("tools")).toBe(0);
});

it("tells its listeners to read again when it holds more notifications than its bound while a stored message is read", async () => {
  // One pooled connection, held below: the stored message's read waits for it, as under a busy pool.
  const narrow = postgres(database.url, { max: 1, onnotice: () => {} });
  try {
    const here = broadcaster(one);
    const there = new PgBroadcaster(narrow, { maxBytes: MAX_BYTES, maxPendingNotifications: 5 });
    const stop = new AbortController();
    const tools = new Lines(await there.subscribe("tools", stop.signal));
    let release!: () => void;
    let held!: Promise<unknown>;
    await new Promise<void>((entered) => {
      held = narrow.begin(() => {
        entered();
        return new Promise<void>((resolve) => (release = resolve));
      });
    });
    const big = { text: "b".repeat(MAX_PAYLOAD_BYTES) };
    await here.publish("tools", big);
    for (let n = 1; n <= 7; n++) await here.publish("tools", { n });
    // The sixth found five waiting: they were dropped, and the listener told at once, while the read still waits.
    expect(await tools.take(1)).toEqual([{ jsonrpc: "2.0", method: "notifications/tools/list_changed" }]);
    release();
    await held;
    expect(await tools.take(2)).toEqual([big, { n: 7 }]);
    stop.abort();
    await there.close();
  } finally {
    await narrow.end();
  }
});
