/**
 * The Worker: HTTP routing for one server definition, with itty-router. Routes are small
 * functions in `routes/`; this file only wires them: CORS preflight and Origin validation
 * before every route, CORS headers after, the 404/405 answers, one log line per request, and
 * the single `catch` that maps anything thrown to a JSON-RPC error.
 *
 * Not here: session state (the Durable Object), protocol logic (`shared/`).
 */
import { type IRequest, Router } from "itty-router";
import { readConfig } from "../shared/config/readConfig.ts";
import { ErrorCode } from "../shared/errors/errorCodes.ts";
import { McpError } from "../shared/errors/McpError.ts";
import { preflight, withCors } from "../shared/http/cors.ts";
import { errorResponse } from "../shared/http/errorResponse.ts";
import { checkHost } from "../shared/http/checkHost.ts";
import { checkOrigin } from "../shared/http/originPolicy.ts";
import { Logger } from "../shared/log/Logger.ts";
import type { McpServer } from "../shared/server/McpServer.ts";
import type { Env } from "./Env.ts";
import { describeServer } from "./routes/describeServer.ts";
import { openSse } from "./routes/openSse.ts";
import { deleteMcp, getMcp, postMcp } from "./routes/mcp.ts";
import { postMessage } from "./routes/postMessage.ts";
import { statelessDeps } from "./statelessDeps.ts";

type Args = [Env, ExecutionContext];

const loggerFor = (env: Env) => new Logger(readConfig(env).logLevel);
const errorIfAny = (error: McpError | undefined) => (error ? errorResponse(error) : undefined);

export function createWorker(server: McpServer): ExportedHandler<Env> {
  const depsFor = statelessDeps(server);
  const notAllowed = (allow: string) => () =>
    errorResponse(new McpError(405, ErrorCode.InvalidRequest, `Method not allowed; use ${allow}`, undefined, { allow }));

  const router = Router<IRequest, Args>({
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
    .get("/health", () => Response.json({ status: "ok" }))
    .get("/sse", (request, env) => openSse(request, env))
    .all("/sse", notAllowed("GET"))
    .post("/message", (request, env) => postMessage(request, env, readConfig(env)))
    .all("/message", notAllowed("POST"))
    .post("/mcp", (request, env) => postMcp(request, env, readConfig(env), depsFor(env)))
    .get("/mcp", (request, env) => getMcp(request, env))
    .delete("/mcp", (request, env) => deleteMcp(request, env))
    .all("/mcp", notAllowed("GET, POST, DELETE"))
    .all("*", (request) => errorResponse(new McpError(404, ErrorCode.InvalidRequest, `No route for ${request.method} ${new URL(request.url).pathname}`)));

  return { fetch: (request, env, ctx) => router.fetch(request, env, ctx) };
}
