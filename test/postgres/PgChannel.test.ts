/**
 * `PgChannel` on a real PostgreSQL, between two processes (two connection pools): what one
 * publishes the other hears, in order; a payload at the bound is delivered and one past it refused
 * with a sentence, where PostgreSQL itself would refuse it; a subscriber whose connection the
 * server ends listens again, is told so, and hears what is published afterwards; an unsubscribed
 * listener hears nothing more, even after a reconnection; what is published within a transaction
 * is heard once it commits, with the row it wrote, and never when it rolls back.
 */
import postgres, { type Sql } from "postgres";
import { afterAll, beforeAll, expect, it } from "vitest";
import { MAX_PAYLOAD_BYTES, PgChannel } from "../../postgres/PgChannel.ts";
import { type FreshDatabase, freshDatabase } from "../support/freshDatabase.ts";

let database: FreshDatabase;
let publisher: Sql;
let subscriber: Sql;

beforeAll(async () => {
  database = await freshDatabase();
  publisher = postgres(database.url, { max: 2, onnotice: () => {} });
  subscriber = postgres(database.url, { max: 2, onnotice: () => {} });
});
afterAll(async () => {
  await Promise.all([publisher?.end(), subscriber?.end()]);
  await database?.drop();
});

/** Resolves once `heard` holds `count` payloads. */
const waitFor = async (heard: string[], count: number) => {
  for (let i = 0; heard.length < count; i++) {
    if (i > 500) throw new Error(`heard ${heard.length} of ${count} notifications`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

/** Ends the subscriber's listening connection from the server's side, as a restart or a network drop would. */
const dropListeners = async (channel: string) => {
  const ended = await publisher`
    SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
    WHERE datname = current_database() AND pid <> pg_backend_pid() AND query ILIKE ${`listen "${channel}"%`}`;
  expect(ended.length).toBe(1);
};

it("delivers what one process publishes to another, in order", async () => {
  const heard: string[] = [];
  const subscription = await new PgChannel(subscriber, "mcp_order").subscribe((payload) => heard.push(payload));
  const channel = new PgChannel(publisher, "mcp_order");
  for (let i = 1; i <= 20; i++) await channel.publish(`change ${i}`);
  await waitFor(heard, 20);
  expect(heard).toEqual(Array.from({ length: 20 }, (_, i) => `change ${i + 1}`));
  await subscription.unsubscribe();
});

it(`delivers a payload of ${MAX_PAYLOAD_BYTES} bytes and refuses a larger one before sending it, as PostgreSQL would`, async () => {
  const heard: string[] = [];
  const subscription = await new PgChannel(subscriber, "mcp_sizes").subscribe((payload) => heard.push(payload));
  const channel = new PgChannel(publisher, "mcp_sizes");
  // Three-byte characters: the bound is in UTF-8 bytes, not in characters.
  const atBound = "☃".repeat(Math.floor(MAX_PAYLOAD_BYTES / 3)) + "x".repeat(MAX_PAYLOAD_BYTES % 3);
  await channel.publish(atBound);
  const over = "☃".repeat(2_667);
  await expect(channel.publish(over)).rejects.toThrow(`A notification on "mcp_sizes" is 8001 bytes, over the ${MAX_PAYLOAD_BYTES} PostgreSQL delivers: store the payload and publish where to find it`);
  await expect(publisher`SELECT pg_notify('mcp_sizes', ${"x".repeat(MAX_PAYLOAD_BYTES + 1)})`).rejects.toThrow(/payload string too long/);
  await channel.publish("after");
  await waitFor(heard, 2);
  expect(heard).toEqual([atBound, "after"]);
  expect(() => new PgChannel(publisher, "c".repeat(64))).toThrow("A channel's name is 1 to 63 bytes");
  await subscription.unsubscribe();
});

it("listens again after its connection drops, says so, and hears what is published afterwards", async () => {
  const heard: string[] = [];
  let resubscribed = 0;
  const subscription = await new PgChannel(subscriber, "mcp_drop").subscribe(
    (payload) => heard.push(payload),
    () => resubscribed++,
  );
  const channel = new PgChannel(publisher, "mcp_drop");
  await channel.publish("before");
  await waitFor(heard, 1);
  await dropListeners("mcp_drop");
  // Publish until the new connection hears one: the first may go out before it listens again.
  for (let i = 0; !heard.includes("after") || resubscribed === 0; i++) {
    if (i > 300) throw new Error(`not heard again after the drop (resubscribed ${resubscribed} times)`);
    await channel.publish("after");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(resubscribed).toBe(1);
  expect(heard[0]).toBe("before");

  // Unsubscribed after a reconnection: nothing more reaches the listener.
  await subscription.unsubscribe();
  const count = heard.length;
  const other: string[] = [];
  const witness = await new PgChannel(subscriber, "mcp_drop").subscribe((payload) => other.push(payload));
  await channel.publish("unheard");
  await waitFor(other, 1);
  expect(heard.length).toBe(count);
  await witness.unsubscribe();
});

it("delivers what is published within a transaction when it commits, with its row, and nothing when it rolls back", async () => {
  await publisher`CREATE TABLE notes (id integer PRIMARY KEY, text text NOT NULL)`;
  const heard: string[] = [];
  const found: string[] = [];
  const subscription = await new PgChannel(subscriber, "mcp_txn").subscribe((id) => {
    heard.push(id);
    // The row the notification points at is there by the time it is heard.
    void subscriber`SELECT text FROM notes WHERE id = ${Number(id)}`.then((rows) => found.push(rows[0]?.text ?? "missing"));
  });
  const channel = new PgChannel(publisher, "mcp_txn");
  await publisher
    .begin(async (tx) => {
      await tx`INSERT INTO notes VALUES (1, 'rolled back')`;
      await channel.publish("1", tx);
      throw new Error("roll back");
    })
    .catch(() => {});
  let published = false;
  await publisher.begin(async (tx) => {
    await tx`INSERT INTO notes VALUES (2, 'committed')`;
    await channel.publish("2", tx);
    // Not delivered before the commit.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(heard).toEqual([]);
    published = true;
  });
  expect(published).toBe(true);
  await waitFor(found, 1);
  expect(heard).toEqual(["2"]);
  expect(found).toEqual(["committed"]);
  await subscription.unsubscribe();
});
