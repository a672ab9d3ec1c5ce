/**
 * HTTP routing for one server definition, the same on every runtime, with itty-router. Routes
 * are small functions beside this file; this one only wires them: Host, CORS preflight and
 * Origin checks before every route, CORS headers after, the 404/405 answers, one log line per
 * request, and the single `catch` that maps anything thrown to a JSON-RPC error.
 *
 * Not here: where sessions live (`Runtime`: Durable Objects on Workers, memory on Deno), protocol
 * logic (`server/`, `session/`, `stateless/`).
 */
import { type IRequest, Router } from "itty-router";
import { readConfig } from "../config/readConfig.ts";
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import { preflight, withCors } from "../http/cors.ts";
import { errorResponse } from "../http/errorResponse.ts";
import { checkHost } from "../http/checkHost.ts";
import { checkOrigin } from "../http/originPolicy.ts";
import { Logger } from "../log/Logger.ts";
import type { McpServer } from "../server/McpServer.ts";
import type { Runtime } from "../host/Runtime.ts";
import { describeServer } from "./describeServer.ts";
import { deleteMcp, getMcp, postMcp } from "./mcp.ts";
import { openSse } from "./openSse.ts";
import { postMessage } from "./postMessage.ts";
import { statelessDeps } from "./statelessDeps.ts";

type Env = Readonly<Record<string, unknown>>;

const loggerFor = (env: Env) => new Logger(readConfig(env).logLevel);
const errorIfAny = (error: McpError | undefined) => (error ? errorResponse(error) : undefined);

/** @example const handle = createRouter(server, runtime); const response = await handle(request, env); */
export function createRouter<E extends Env>(server: McpServer, runtime: Runtime<E>): (request: Request, env: E) => Promise<Response> {
  const depsFor = statelessDeps(server, runtime);
  const notAllowed = (allow: string) => () =>
    errorResponse(new McpError(405, ErrorCode.InvalidRequest, `Method not allowed; use ${allow}`, undefined, { allow }));

  const router = Router<IRequest, [E]>({
    before: [
      (request) => void (request.startedAt = Date.now()),
      // Security first: a foreign Host refused, the preflight answered and a foreign Origin
      // refused, before any route runs.
      (request, env) => {
        const config = readConfig(env);
        const policy = { allowed: config.allowedOrigins };
        return errorIfAny(checkHost(request, config.allowedHosts)) ?? preflight(request, policy) ?? errorIfAny(checkOrigin(request, policy));
      },
    ],
    catch: (error, _request, env) => errorResponse(error, null, loggerFor(env)),
    finally: [
      (response: Response, request, env) => withCors(response, request, { allowed: readConfig(env).allowedOrigins }),
      (response: Response, request, env) => {
        loggerFor(env).debug("http", {
          method: request.method,
          path: new URL(request.url).pathname,
          status: response.status,
          ms: Date.now() - request.startedAt,
        });
        return response;
      },
    ],
  });

  router
    .get("/", (_request, env) => describeServer(server, readConfig(env)))
    .all("/", notAllowed("GET"))
    .get("/health", () => Response.json({ status: "ok" }))
    .all("/health", notAllowed("GET"))
    .get("/sse", (request, env) => openSse(request, runtime.sessions(env)))
    .all("/sse", notAllowed("GET"))
    .post("/message", (request, env) => postMessage(request, runtime.sessions(env), readConfig(env)))
    .all("/message", notAllowed("POST"))
    .post("/mcp", (request, env) => postMcp(request, runtime.sessions(env), readConfig(env), depsFor(env)))
    .get("/mcp", (request, env) => getMcp(request, runtime.sessions(env)))
    .delete("/mcp", (request, env) => deleteMcp(request, runtime.sessions(env)))
    .all("/mcp", notAllowed("GET, POST, DELETE"))
    .all("*", (request) => errorResponse(new McpError(404, ErrorCode.InvalidRequest, `No route for ${request.method} ${new URL(request.url).pathname}`)));

  return (request, env) => router.fetch(request, env);
}
