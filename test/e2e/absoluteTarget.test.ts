/**
 * An absolute-form request target (`GET http://localhost:PORT/health`, RFC 9112 §3.2.2) on the
 * runtimes that listen themselves (Node, Deno): served as its path when it names the Host
 * header's authority, as a client sends them (RFC 9110 §7.2); refused 400 when it names another,
 * so that a client cannot have one name checked (`ALLOWED_HOSTS`) and another served. Raw HTTP on
 * `node:net`: `fetch` cannot send it. Not on workerd (the e2e project): workerd answers such a
 * target itself, before the Worker runs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../scripts/startServer.mjs";
import { rawGet } from "../support/rawExchange.ts";

const VARS = { LOG_LEVEL: "error", ALLOWED_HOSTS: "localhost,127.0.0.1,[::1]" };

let server: Awaited<ReturnType<typeof startServer>>;
beforeAll(async () => {
  server = await startServer({ entry: "test/runtime/testWorker.ts", vars: VARS });
});
afterAll(() => server?.dispose());

const get = (target: string, host: string) => rawGet(server.url, target, host);

describe("an absolute-form request target", () => {
  for (const path of ["/health", "/", "/sse"]) {
    it(`naming another host than Host: evil.test is refused 400 (${path})`, async () => {
      for (const authority of [`localhost:${server.port}`, `127.0.0.1:${server.port}`]) {
        const answer = await get(`http://${authority}${path}`, "evil.test");
        expect(answer.status, `${authority}${path}: ${answer.text}`).toBe(400);
      }
    });
  }

  it("naming the Host header's authority is served as its path", async () => {
    const answer = await get(`http://127.0.0.1:${server.port}/health`, `127.0.0.1:${server.port}`);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.text).toContain('{"status":"ok"}');
  });
});
