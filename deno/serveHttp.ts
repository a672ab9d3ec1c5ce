/**
 * The Deno runtime: the shared routes on `Deno.serve`, sessions hosted in this process by
 * `LocalSessionHost` (the same `Session` a Durable Object hosts on Workers), in memory or — with
 * a KV path — in Deno KV, so a restarted server continues its sessions. Change notifications fan
 * out in memory: one process is one isolate.
 */
import { MemoryBroadcaster } from "../shared/broadcast/MemoryBroadcaster.ts";
import { readConfig } from "../shared/config/readConfig.ts";
import { LocalSessionHost } from "../shared/host/LocalSessionHost.ts";
import { Logger } from "../shared/log/Logger.ts";
import { createRouter } from "../shared/routes/createRouter.ts";
import type { McpServer } from "../shared/server/McpServer.ts";
import { KvStorage } from "./KvStorage.ts";

export interface ServeOptions {
  /** 0 picks a free port. */
  port: number;
  /** Loopback by default; anything else exposes the server. */
  hostname?: string;
  /** A Deno KV database file for session storage; in memory when absent. */
  kvPath?: string;
  env: Record<string, string>;
  /**
   * Routes of your own, tried before the MCP routes: return a response to answer the request,
   * undefined to let the MCP routes have it. (How `example/webSocketDeno.ts` adds `/ws`.)
   */
  route?(request: Request): Response | Promise<Response> | undefined;
}

export async function serveHttp(server: McpServer, options: ServeOptions): Promise<{ url: string; shutdown(): Promise<void> }> {
  const { env } = options;
  const config = readConfig(env);
  const logger = new Logger(config.logLevel);
  const broadcast = new MemoryBroadcaster(config.maxQueueBytes);
  const kv = options.kvPath === undefined ? undefined : await Deno.openKv(options.kvPath);
  const sessions = new LocalSessionHost({ server, config, logger, env, broadcast, storageFor: kv && ((id) => new KvStorage(kv, id)) });
  if (kv) await sessions.restore(await KvStorage.sessionIds(kv));
  const handle = createRouter(server, { sessions: () => sessions, broadcaster: () => broadcast });
  let listening!: (url: string) => void;
  const url = new Promise<string>((resolve) => (listening = resolve));
  const http = Deno.serve({ hostname: options.hostname ?? "127.0.0.1", port: options.port, onListen: ({ hostname, port }) => listening(`http://${hostname}:${port}`) }, (request) =>
    options.route?.(request) ?? handle(request, env),
  );
  return {
    url: await url,
    async shutdown() {
      sessions.close();
      await http.shutdown();
      kv?.close();
    },
  };
}
