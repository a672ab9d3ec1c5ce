/**
 * The request target cannot stand in for the Host header, which names the server and which the
 * DNS-rebinding check (`ALLOWED_HOSTS`) reads: a target `//localhost:PORT/…` — which a page
 * rebound to this address can send, and which a URL parser given a base reads as another
 * authority — is a path under `Host: evil.test` and refused 403 by the check, on every runtime,
 * as `/…` is. Raw HTTP on `node:net`: `fetch` cannot send it. The absolute form is
 * `absoluteTarget.test.ts`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../scripts/startServer.mjs";
import { rawGet } from "../support/rawExchange.ts";

/** The loopback names, as `npm start`, Deno and Node on 127.0.0.1 answer by default. */
const VARS = { LOG_LEVEL: "error", ALLOWED_HOSTS: "localhost,127.0.0.1,[::1]" };

let server: Awaited<ReturnType<typeof startServer>>;
beforeAll(async () => {
  server = await startServer({ entry: "test/runtime/testWorker.ts", vars: VARS });
});
afterAll(() => server?.dispose());

const get = (target: string, host: string) => rawGet(server.url, target, host);

describe("a request target of two leading slashes", () => {
  for (const path of ["/health", "/", "/sse"]) {
    it(`is a path under Host: evil.test, refused 403 (//localhost:PORT${path}, and ${path})`, async () => {
      for (const target of [`//localhost:${server.port}${path}`, `//127.0.0.1:${server.port}${path}`, path]) {
        const answer = await get(target, "evil.test");
        expect(answer.status, `${target}: ${answer.text}`).toBe(403);
        expect(answer.text).toContain('Host \\"evil.test\\" is not allowed');
      }
    });
  }

  it("is a path under a loopback Host too: not the health check, which is /health", async () => {
    expect((await get("/health", `127.0.0.1:${server.port}`)).status).toBe(200);
    const answer = await get(`//localhost:${server.port}/health`, `127.0.0.1:${server.port}`);
    expect(answer.status, answer.text).toBe(404);
  });
});
