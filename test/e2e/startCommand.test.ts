/**
 * The README's start commands work: `npm start -- --port N` (workerd, through `wrangler dev`)
 * and, in the Deno contract run, `npm run start:deno -- --port N` serve the example server at
 * http://127.0.0.1:N with /health, /sse and /message, and refuse a request addressed to another
 * host name, as a DNS-rebinding page's would be.
 */
import { request } from "node:http";
import { afterAll, expect, it } from "vitest";
import { type NpmScript, npmScript } from "../support/npmScript.ts";
import { SseReader } from "../support/SseReader.ts";

/** A GET with a `Host` of our choosing (fetch may not set it), as a rebound page's request arrives. */
const getWithHost = (url: string, host: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(url, { headers: { host } }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode!, body }));
    });
    req.on("error", reject).end();
  });

let started: NpmScript | undefined;
afterAll(() => started?.stop());

const script = process.env.RUNTIME === "deno" ? ["run", "start:deno"] : ["start"];

it(`npm ${script.join(" ")} -- --port N serves the example server`, { timeout: 90_000 }, async () => {
  started = await npmScript(script);
  const { base, health } = started;
  const { port } = new URL(base);
  expect(health?.status, started.output()).toBe(200);
  expect(await health!.json()).toEqual({ status: "ok" });

  const sse = await fetch(`${base}/sse`);
  const reader = new SseReader(sse.body!);
  const endpoint = await reader.next();
  expect(endpoint.event).toBe("endpoint");
  const accepted = await fetch(new URL(endpoint.data, base), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });
  expect(accepted.status).toBe(202);
  expect(await reader.nextMessage()).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
  await reader.cancel();

  const rebound = await getWithHost(`${base}/sse`, `evil.test:${port}`);
  expect(rebound.status).toBe(403);
  expect(JSON.parse(rebound.body).error.message).toMatch(/^Host "evil.test" is not allowed/);
  expect((await getWithHost(`${base}/health`, `localhost:${port}`)).status).toBe(200);
});
