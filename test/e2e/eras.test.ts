/**
 * One URL, every client generation, all at once: against the example server's `/mcp`, the v2
 * SDK client negotiates 2026-07-28 (no session), the v1 SDK client gets a 2025-11-25 session,
 * and a legacy HTTP+SSE client keeps working on `/sse`, each calling tools concurrently.
 */
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startServer } from "../../scripts/startServer.mjs";

let server: Awaited<ReturnType<typeof startServer>>;
beforeAll(async () => {
  server = await startServer({ vars: { LOG_LEVEL: "error" } });
});
afterAll(() => server?.dispose());

const upper = async (call: Promise<unknown>) => ((await call) as { content: { text: string }[] }).content[0]!.text;

it("serves a 2026-07-28 client, a 2025-11-25 session and a legacy SSE client from one deployment at the same time", async () => {
  const url = new URL("/mcp", server.url);
  // "auto" probes server/discover and would fall back to initialize: landing on modern proves the URL offers it.
  const modern = new ModernClient({ name: "v2-client", version: "2.4.0" }, { versionNegotiation: { mode: "auto" } });
  const modernTransport = new ModernTransport(url);
  const session = new Client({ name: "v1-client", version: "1.32.2" });
  const sessionTransport = new StreamableHTTPClientTransport(url);
  const legacy = new Client({ name: "Cline", version: "3.15.5" });

  await Promise.all([modern.connect(modernTransport), session.connect(sessionTransport), legacy.connect(new SSEClientTransport(new URL("/sse", server.url)))]);

  expect(modern.getNegotiatedProtocolVersion()).toBe("2026-07-28");
  expect(modern.getProtocolEra()).toBe("modern");
  expect(modernTransport.sessionId).toBeUndefined();
  expect(modern.getServerVersion()).toMatchObject({ name: "my-weather-server" });
  expect(session.getServerVersion()).toMatchObject({ name: "my-weather-server" });
  expect(sessionTransport.sessionId).toMatch(/^[0-9a-f]{32}$/);
  expect(sessionTransport.protocolVersion).toBe("2025-11-25");

  const rounds = await Promise.all(
    Array.from({ length: 5 }, (_, i) =>
      Promise.all([
        upper(modern.callTool({ name: "toUpperCase", arguments: { input: `modern ${i}` } })),
        upper(session.callTool({ name: "toUpperCase", arguments: { input: `session ${i}` } })),
        upper(legacy.callTool({ name: "toUpperCase", arguments: { input: `legacy ${i}` } })),
      ]),
    ),
  );
  expect(rounds).toEqual(Array.from({ length: 5 }, (_, i) => [`MODERN ${i}`, `SESSION ${i}`, `LEGACY ${i}`]));

  const names = ["toUpperCase", "getAlerts", "getWeatherForecastByLocation", "getScore", "notepad", "alertSweep", "notebook", "alertBoard"];
  expect((await modern.listTools()).tools.map((t) => t.name)).toEqual(names);
  expect((await session.listTools()).tools.map((t) => t.name)).toEqual(names);
  // Per-session state exists only where there is a session; the notepad points a 2026-07-28 client to the notebook.
  const modernNote: any = await modern.callTool({ name: "notepad", arguments: { action: "add", text: "hi" } });
  expect(modernNote.isError).toBe(true);
  expect(modernNote.content[0].text).toMatch(/protocol 2026-07-28, which has none\. Use the notebook tool instead/);
  expect(await upper(session.callTool({ name: "notepad", arguments: { action: "add", text: "hi" } }))).toBe("Noted. The pad has 1 note(s).");
  // State under a handle is the same in every era: opened by the 2026-07-28 client, added to by the others.
  const opened = await upper(modern.callTool({ name: "notebook", arguments: { action: "add", text: "from 2026-07-28" } }));
  const notebook = /notebook ([0-9a-f]{32})/.exec(opened)![1];
  expect(await upper(session.callTool({ name: "notebook", arguments: { notebook, action: "add", text: "from a session" } }))).toBe("Noted. The pad has 2 note(s).");
  expect(await upper(legacy.callTool({ name: "notebook", arguments: { notebook, action: "add", text: "from HTTP+SSE" } }))).toBe("Noted. The pad has 3 note(s).");
  expect(await upper(modern.callTool({ name: "notebook", arguments: { notebook, action: "list" } }))).toBe("1. from 2026-07-28\n2. from a session\n3. from HTTP+SSE");
  await Promise.all([modern.close(), session.close(), legacy.close()]);
});
