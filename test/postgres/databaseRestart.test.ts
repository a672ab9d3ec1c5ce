/**
 * The store across a restart of PostgreSQL itself, on a cluster of this file's own (the shared one
 * serves other files meanwhile): a subscriber listens again once the server is back and hears
 * what is published then, and what was written before is read after; a broadcaster's listener is
 * told to read its list again, then hears the changes published after. Also the cluster helper's
 * refusal when no PostgreSQL is installed.
 */
import postgres, { type Sql } from "postgres";
import { afterAll, beforeAll, expect, it } from "vitest";
import { migrate } from "../../postgres/migrate.ts";
import { PgBroadcaster } from "../../capabilities/watch/postgres/PgBroadcaster.ts";
import { PgChannel } from "../../postgres/PgChannel.ts";
import { PgStorage } from "../../postgres/PgStorage.ts";
import { Lines } from "../support/Lines.ts";
import { type Cluster, postgresBinDir, startCluster } from "../support/postgresCluster.ts";

/** How long the server stays down: long enough that the subscriber's first reconnection attempts fail. */
const DOWN_MS = 1_000;

let cluster: Cluster;
let publisher: Sql;
let subscriber: Sql;

beforeAll(async () => {
  cluster = await startCluster();
  publisher = postgres(cluster.url, { max: 2, onnotice: () => {} });
  subscriber = postgres(cluster.url, { max: 2, onnotice: () => {} });
  await migrate(publisher);
});
afterAll(async () => {
  await Promise.all([publisher?.end({ timeout: 1 }), subscriber?.end({ timeout: 1 })]);
  await cluster?.stop();
});

it("listens again once a restarted server is back, and keeps what was written before", async () => {
  const heard: string[] = [];
  let resubscribed = 0;
  await new PgChannel(subscriber, "mcp_restart").subscribe(
    (payload) => heard.push(payload),
    () => resubscribed++,
  );
  await PgStorage.home(publisher, "kept").atomically(async (txn) => txn.put("note", "written before"));

  await cluster.restart(DOWN_MS);

  const channel = new PgChannel(publisher, "mcp_restart");
  // The subscriber reconnects with a back-off: publish until it hears one.
  for (let i = 0; heard.length === 0; i++) {
    if (i > 300) throw new Error(`not heard after the restart (resubscribed ${resubscribed} times)`);
    await channel.publish("after the restart");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(heard[0]).toBe("after the restart");
  expect(resubscribed).toBe(1);
  expect(await PgStorage.home(subscriber, "kept").get("note")).toBe("written before");
});

it("tells a broadcaster's listener to read its list again after a restart, and delivers what is published after", async () => {
  const here = new PgBroadcaster(publisher, { maxBytes: 65_536 });
  const there = new PgBroadcaster(subscriber, { maxBytes: 65_536 });
  const stop = new AbortController();
  const tools = new Lines(await there.subscribe("tools", stop.signal));
  await here.publish("tools", { before: true });
  expect(await tools.take(1)).toEqual([{ before: true }]);

  await cluster.restart(DOWN_MS);

  const readAgain = { jsonrpc: "2.0", method: "notifications/tools/list_changed" };
  expect(await tools.take(1, 60_000)).toEqual([readAgain]);
  // The publisher's pooled connections died with the server: the first statement may fail before the pool connects again.
  for (let i = 0; ; i++) {
    try {
      await here.publish("tools", { after: true });
      break;
    } catch (error) {
      if (i > 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  // The driver may report listening again more than once while the server comes back: each is one more "read again".
  let next = await tools.take(1);
  while (JSON.stringify(next) === JSON.stringify([readAgain])) next = await tools.take(1);
  expect(next).toEqual([{ after: true }]);
  stop.abort();
  await Promise.all([here.close(), there.close()]);
});

it("refuses to start without PostgreSQL, saying what to install", () => {
  expect(() => postgresBinDir(["/nonexistent/bin"])).toThrow(
    "No PostgreSQL server programs (initdb, pg_ctl) found in /nonexistent/bin: install Debian's postgresql (apt-get install -y postgresql, as .ci/run does) or set PG_BINDIR to the folder holding them",
  );
});
