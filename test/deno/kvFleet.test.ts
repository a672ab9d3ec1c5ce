/**
 * The fleet of Deno processes on one KV file (`KvFleet`), each process run by
 * `test/fixtures/kvFleet.ts` with a short heartbeat and TTL. A session claimed by one is seen held
 * by the other, and processes asking at once agree; a release lets the other claim it; messages
 * arrive in the order sent, large ones whole, and one over the bound (or past the queue's bound) is
 * refused with a sentence; a process whose lease was swept is told once and carries on; `leave()`
 * leaves no key of its own, and a KV store's `close()` leaves its fleet. A process killed outright
 * is dead after its TTL, its sessions are claimed by the other, and its keys (lease, holds, inbox,
 * bell) are swept. One frozen past its TTL loses its sessions to the other, and is told so once it
 * runs again.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, beforeEach, expect, it } from "vitest";
import { MAX_QUEUED_SENDS } from "../../deno/kv/KvFleet.ts";
import { MAX_FLEET_MESSAGE_BYTES } from "../../shared/runtime/Fleet.ts";
import { DENO_FLAGS, denoBinary } from "../../scripts/startDenoServer.mjs";

const FIXTURE = "test/fixtures/kvFleet.ts";
/** How long a test waits for what the fleet does in its own time (a lease lapsing, a sweep, a poll). */
const WITHIN_MS = 30_000;

interface FleetProcess {
  child: ChildProcessWithoutNullStreams;
  /** Runs a command in the process; its result, or its error message as `{ error }`. */
  run(op: string, args?: Record<string, unknown>): Promise<any>;
  /** What the fleet told the process so far, in order. */
  events: any[];
  stderr(): string;
}

let dir: string;
let started: FleetProcess[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "durable-mcp-kv-fleet-"));
});
afterEach(async () => {
  for (const process of started) process.child.kill("SIGKILL");
  started = [];
  await rm(dir, { recursive: true, force: true });
});

function startProcess(): FleetProcess {
  const child = spawn(denoBinary, [...DENO_FLAGS, FIXTURE, join(dir, "shared.kv")], { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" } });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const waiting = new Map<number, { answer(line: any): void; exited(error: Error): void }>();
  const events: any[] = [];
  createInterface({ input: child.stdout }).on("line", (text) => {
    const line = JSON.parse(text);
    if (line.event) events.push(line);
    else waiting.get(line.id)?.answer(line);
  });
  child.once("exit", (code) => {
    for (const [id, { exited }] of waiting) exited(new Error(`The fleet process exited (${code}) before answering command ${id}: ${stderr}`));
  });
  let nextId = 0;
  const started: FleetProcess = {
    child,
    events,
    stderr: () => stderr,
    run(op, args = {}) {
      const id = ++nextId;
      const answered = new Promise<any>((resolve, reject) => {
        waiting.set(id, {
          answer: (line) => {
            waiting.delete(id);
            resolve(line.error === undefined ? line.result : { error: line.error });
          },
          exited: reject,
        });
      });
      child.stdin.write(`${JSON.stringify({ id, op, ...args })}\n`);
      return answered;
    },
  };
  return started;
}

type Member = FleetProcess & { self: string };

/** Two processes on one file, started together and joined. */
async function twoJoined(): Promise<[Member, Member]> {
  const processes = [startProcess(), startProcess()];
  started.push(...processes);
  const [first, second] = await Promise.all(processes.map(async (process) => Object.assign(process, { self: (await process.run("join")) as string })));
  return [first!, second!];
}

/** Polls `probe` until `done` holds for what it gives, or fails with what it last gave. */
async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + WITHIN_MS;
  let last: T;
  do {
    last = await probe();
    if (done(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  } while (Date.now() < deadline);
  throw new Error(`never got there: ${JSON.stringify(last)}`);
}

function received(process: FleetProcess): any[] {
  return process.events.filter((event) => event.event === "received").map((event) => event.message);
}

/** The fleet's keys that name `id`, in the key or as a holder. */
function keysOf(keys: Array<{ key: unknown[]; value: string | null }>, id: string) {
  return keys.filter(({ key, value }) => key.includes(id) || value === id);
}

it("holds each session in one process, carries messages between them in order and within bounds, and leaves no key", { timeout: 120_000 }, async () => {
  const [a, b] = await twoJoined();

  expect(await a.run("holder", { session: "s1" })).toBe(a.self);
  expect(await b.run("holder", { session: "s1" })).toBe(a.self);
  expect(await b.run("alive", { of: a.self })).toBe(true);
  expect(await b.run("alive", { of: "nobody" })).toBe(false);

  // Both ask for the same sessions at once: one claim each, and they agree on it.
  const sessions = Array.from({ length: 20 }, (_, i) => `together-${i}`);
  const [fromA, fromB] = await Promise.all([a.run("holders", { sessions }), b.run("holders", { sessions })]);
  expect(fromA).toEqual(fromB);
  for (const holder of fromA) expect([a.self, b.self]).toContain(holder);

  await a.run("release", { session: "s1" });
  expect(await b.run("holder", { session: "s1" })).toBe(b.self);
  // Releasing what another holds changes nothing.
  await a.run("release", { session: "s1" });
  expect(await a.run("holder", { session: "s1" })).toBe(b.self);

  const messages = Array.from({ length: 200 }, (_, i) => `m${i + 1}`);
  expect(await a.run("send", { to: b.self, messages })).toEqual(messages.map(() => "sent"));
  expect(await b.run("send", { to: a.self, messages: ["back"] })).toEqual(["sent"]);
  await until(async () => received(b).length, (count) => count >= messages.length);
  expect(received(b)).toEqual(messages);
  await until(async () => received(a), (seen) => seen.length > 0);
  expect(received(a)).toEqual(["back"]);

  // 50 KB with characters of two and three UTF-8 bytes, which Deno KV would store as two bytes each in a string.
  const large = await a.run("sendLong", { to: b.self, head: "€", char: "é", units: 25_000 });
  expect(large).toEqual({ length: 25_000, checksum: expect.any(Number) });
  await until(async () => received(b).length, (count) => count > messages.length);
  expect(received(b).slice(messages.length)).toEqual([large]);

  // Twelve of them at once: more bytes than one commit carries, so in several, still in order.
  const largeOnes = await a.run("sendLongs", { to: b.self, count: 12, units: 25_000 });
  expect(largeOnes).toHaveLength(12);
  await until(async () => received(b).length, (count) => count >= messages.length + 13);
  expect(received(b).slice(messages.length + 1)).toEqual(largeOnes);

  const refusal = (bytes: number) => `A message of ${bytes} bytes is more than the ${MAX_FLEET_MESSAGE_BYTES} Deno KV carries between processes: send it in smaller parts`;
  expect(await a.run("sendLong", { to: b.self, head: "x", char: "x", units: MAX_FLEET_MESSAGE_BYTES + 1 })).toBe(refusal(MAX_FLEET_MESSAGE_BYTES + 1));
  expect(await a.run("sendLong", { to: b.self, head: "€", char: "é", units: MAX_FLEET_MESSAGE_BYTES / 2 })).toBe(refusal(MAX_FLEET_MESSAGE_BYTES + 1));

  // Past the messages one receiver may have waiting here: the rest refused, what was taken delivered in order.
  const past = 6;
  expect(await a.run("flood", { to: b.self, count: MAX_QUEUED_SENDS + past })).toEqual({
    refused: past,
    first: `${MAX_QUEUED_SENDS} messages to one process already wait to be written: send once some are`,
  });
  const before = messages.length + 13;
  await until(async () => received(b).length, (count) => count >= before + MAX_QUEUED_SENDS);
  expect(received(b).slice(before)).toEqual(Array.from({ length: MAX_QUEUED_SENDS }, (_, i) => `f${i + 1}`));

  // A lease swept from under a live process: it is told once, and takes a new lease.
  await b.run("evict", { of: a.self });
  await until(async () => a.events.filter((event) => event.event === "expelled").length, (count) => count > 0);
  await until(() => b.run("alive", { of: a.self }), (alive) => alive === true);
  expect(a.events.filter((event) => event.event === "expelled")).toHaveLength(1);

  // A KV store's fleet leaves when the store closes.
  const viaStore = await b.run("storeFleet");
  expect(viaStore).toEqual({ self: expect.any(String), once: true, claimed: true });
  expect(keysOf(await a.run("keys"), viaStore.self)).toEqual([]);

  await b.run("leave");
  const left = await a.run("keys");
  expect(keysOf(left, b.self)).toEqual([]);
  expect(await a.run("holder", { session: "s1" })).toBe(a.self);
  await a.run("leave");
  expect(await a.run("keys")).toEqual([]);
  // Gone from the fleet: it neither claims nor sends any more.
  expect(await a.run("holder", { session: "s1" })).toEqual({ error: "This process has left the fleet" });
  expect(await a.run("send", { to: b.self, messages: ["late"] })).toEqual(["This process has left the fleet"]);
  expect(await a.run("keys")).toEqual([]);
  expect(a.stderr() + b.stderr()).toBe("");
});

it("finds a killed process dead after its TTL, lets the other claim its sessions, and sweeps its keys", { timeout: 120_000 }, async () => {
  const [a, c] = await twoJoined();
  expect(await c.run("holders", { sessions: ["k1", "k2"] })).toEqual([c.self, c.self]);
  expect(await a.run("holder", { session: "k1" })).toBe(c.self);

  c.child.kill("SIGKILL");
  expect(await a.run("send", { to: c.self, messages: ["unread-1", "unread-2"] })).toEqual(["sent", "sent"]);
  await until(() => a.run("alive", { of: c.self }), (alive) => alive === false);
  expect(await a.run("holder", { session: "k1" })).toBe(a.self);

  // Its lease, its hold on k2 (which no one claimed), its inbox and its bell.
  await until(async () => keysOf(await a.run("keys"), c.self), (keys) => keys.length === 0);
  expect(await a.run("holder", { session: "k2" })).toBe(a.self);
  await a.run("leave");
  expect(await a.run("keys")).toEqual([]);
  expect(a.stderr()).toBe("");
});

it("tells a process that froze past its TTL that it was expelled, the other having claimed its session meanwhile", { timeout: 120_000 }, async () => {
  const [a, b] = await twoJoined();
  expect(await a.run("holder", { session: "frozen" })).toBe(a.self);
  // Far longer than the TTL, so that the other sees it dead for a while however slow the machine.
  const stalled = a.run("stall", { ms: 8_000 });
  await until(() => b.run("alive", { of: a.self }), (alive) => alive === false);
  expect(await b.run("holder", { session: "frozen" })).toBe(b.self);
  await stalled;
  await until(async () => a.events.filter((event) => event.event === "expelled").length, (count) => count > 0);
  // It carries on with a new lease, holding nothing the other took.
  expect(await a.run("holder", { session: "frozen" })).toBe(b.self);
  await until(() => b.run("alive", { of: a.self }), (alive) => alive === true);
  expect(a.events.filter((event) => event.event === "expelled")).toHaveLength(1);
  await Promise.all([a.run("leave"), b.run("leave")]);
  expect(await a.run("keys")).toEqual([]);
  expect(a.stderr() + b.stderr()).toBe("");
});
