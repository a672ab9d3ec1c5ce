/**
 * HTTP routing for one server definition, the same on every runtime, with itty-router. The MCP
 * routes are a table (`MCP_ROUTES`) that `GET /` describes; this module only wires them: Host,
 * CORS preflight and Origin checks before every route, then the caller's own `before` checks and
 * routes, CORS headers after, the 404/405 answers, one log line per request, and the single
 * `catch` that maps anything thrown to a JSON-RPC error (`errorResponse`).
 *
 * Not here: where sessions live (a `Platform`: Durable Objects on Workers, this process on
 * Deno), protocol logic (`session/`, `stateless/`, `exchange/`).
 */
import { type IRequest, Router } from "itty-router";
import type { Broadcaster } from "../broadcast/Broadcaster.ts";
import { type Config, readConfig } from "../config/readConfig.ts";
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import { checkHost } from "../http/checkHost.ts";
import { preflight, withCors } from "../http/cors.ts";
import { errorResponse } from "../http/errorResponse.ts";
import { checkOrigin } from "../http/originPolicy.ts";
import type { Sessions } from "../host/SessionOperation.ts";
import { Logger } from "../log/Logger.ts";
import type { ServerEnv } from "../server/RequestContext.ts";
import type { ServerDefinition } from "../server/ServerDefinition.ts";
import { RequestState, requestStateSecret } from "../stateless/RequestState.ts";
import type { StatelessDeps } from "../stateless/statelessExchange.ts";
import { describeServer } from "./describeServer.ts";
import { deleteMcp, getMcp, postMcp } from "./mcp.ts";
import { openSse } from "./openSse.ts";
import { postMessage } from "./postMessage.ts";

type Env = ServerEnv;

/** What a runtime supplies, per environment: where sessions live and where changes fan out. */
export interface Platform<E extends Env> {
  sessions(env: E, services: { config: Config; logger: Logger }): Sessions;
  broadcaster(env: E, config: Config): Broadcaster;
}

/** A check of yours: a `Response` answers the request (e.g. a 401), nothing lets it go on. */
export type BeforeStage<E extends Env> = (request: Request, env: E) => Response | undefined | void | Promise<Response | undefined | void>;

/** A route of yours, tried before the MCP routes; `GET /` lists it with its description. */
export interface Route<E extends Env> {
  /** "GET", "POST", … or "ALL". */
  method: string;
  /** An exact path, e.g. "/ws". */
  path: string;
  description?: string;
  handle(request: Request, env: E, context: unknown): Response | Promise<Response>;
}

export interface RouterOptions<E extends Env> {
  /** Run after the Host and Origin checks, before any route, in order. */
  before?: readonly BeforeStage<E>[];
  routes?: readonly Route<E>[];
}

/** What one environment's requests share (per isolate on Workers, once per process elsewhere). */
interface Services {
  config: Config;
  logger: Logger;
  sessions: Sessions;
  stateless: StatelessDeps;
}

type Handler = (request: IRequest, services: Services) => Response | Promise<Response>;

/** The MCP endpoints, as `GET /` describes them. */
const MCP_ROUTES: readonly { method: string; path: string; description: string; handle: Handler }[] = [
  { method: "GET", path: "/mcp", description: "Streamable HTTP (2025): the session's standalone stream, or a resumed one (Last-Event-ID)", handle: (r, s) => getMcp(r, s.sessions) },
  { method: "POST", path: "/mcp", description: "Streamable HTTP: one JSON-RPC message (2026-07-28: no session; 2025: initialize starts one)", handle: (r, s) => postMcp(r, s.sessions, s.config.maxBodyBytes, s.stateless) },
  { method: "DELETE", path: "/mcp", description: "Streamable HTTP (2025): ends the session", handle: (r, s) => deleteMcp(r, s.sessions) },
  { method: "GET", path: "/sse", description: "HTTP+SSE (2024-11-05): opens a session; the first event names the POST endpoint", handle: (r, s) => openSse(r, s.sessions) },
  { method: "POST", path: "/message", description: "HTTP+SSE: one JSON-RPC message or batch for ?sessionId=…; 202, replies on the stream", handle: (r, s) => postMessage(r, s.sessions, s.config.maxBodyBytes) },
  { method: "GET", path: "/health", description: "liveness for load balancers and monitors", handle: () => Response.json({ status: "ok" }) },
];

/** @example const handle = createRouter(definition, platform); const response = await handle(request, env); */
export function createRouter<E extends Env>(definition: ServerDefinition, platform: Platform<E>, options: RouterOptions<E> = {}): (request: Request, env: E, context?: unknown) => Promise<Response> {
  const built = new WeakMap<E, Services>();
  const servicesFor = (env: E): Services => {
    let services = built.get(env);
    if (!services) {
      const config = readConfig(env);
      const logger = new Logger(config.logLevel);
      const secret = requestStateSecret(env);
      if (secret === undefined) {
        logger.warn("config.request-state-secret", { message: "REQUEST_STATE_SECRET is not set: requestState is sealed with a per-isolate key, so a retry that reaches another isolate is refused" });
      }
      if (definition.problem) logger.error("definition.invalid", { message: definition.problem.message });
      const broadcast = platform.broadcaster(env, config);
      const requestState = new RequestState(secret, config.requestStateTtlMs);
      services = { config, logger, sessions: platform.sessions(env, { config, logger }), stateless: { server: definition, config, logger, env, requestState, broadcast } };
      built.set(env, services);
    }
    return services;
  };
  const userRoutes = options.routes ?? [];
  const described = [...userRoutes.map(({ method, path, description }) => ({ method, path, description: description ?? "" })), ...MCP_ROUTES];

  const router = Router<IRequest, [E, unknown]>({
    before: [
      (request) => void (request.startedAt = Date.now()),
      // Security first: a foreign Host refused, the preflight answered and a foreign Origin
      // refused, before anything else runs.
      (request, env) => {
        const { config } = servicesFor(env);
        const policy = { allowed: config.allowedOrigins };
        const refused = checkHost(request, config.allowedHosts) ?? preflight(request, policy) ?? checkOrigin(request, policy);
        return refused instanceof McpError ? errorResponse(refused) : refused;
      },
      ...(options.before ?? []).map((stage) => async (request: IRequest, env: E) => (await stage(request, env)) ?? undefined),
    ],
    catch: (error, _request, env) => errorResponse(error, null, servicesFor(env).logger),
    finally: [
      (response: Response, request, env) => withCors(response, request, { allowed: servicesFor(env).config.allowedOrigins }),
      (response: Response, request, env) => {
        if (response.status !== 101) servicesFor(env).logger.debug("http", { method: request.method, path: new URL(request.url).pathname, status: response.status, ms: Date.now() - request.startedAt });
        return response;
      },
    ],
  });

  for (const route of userRoutes) router.all(route.path, (request, env, context) => (route.method === "ALL" || request.method === route.method ? route.handle(request, env, context) : undefined));
  router.get("/", (_request, env) => describeServer(definition, servicesFor(env).config, described));
  router.all("/", notAllowed("GET"));
  for (const route of MCP_ROUTES) {
    router.all(route.path, (request, env) => {
      if (request.method !== route.method) return undefined;
      if (definition.problem && route.path !== "/health") return invalidDefinition(definition.problem);
      return route.handle(request, servicesFor(env));
    });
  }
  for (const path of new Set(MCP_ROUTES.map((r) => r.path))) router.all(path, notAllowed(MCP_ROUTES.filter((r) => r.path === path).map((r) => r.method).join(", ")));
  router.all("*", (request) => errorResponse(new McpError(404, ErrorCode.InvalidRequest, `No route for ${request.method} ${new URL(request.url).pathname}`)));

  return (request, env, context) => router.fetch(request, env, context);
}

function notAllowed(allow: string) {
  return () => errorResponse(new McpError(405, ErrorCode.InvalidRequest, `Method not allowed; use ${allow}`, undefined, { allow }));
}

/** Every MCP request, while the definition cannot be served: the sentence that says why, until the file is fixed. */
function invalidDefinition(problem: Error): Response {
  return errorResponse(new McpError(500, ErrorCode.InternalError, `The server definition is invalid: ${problem.message}`));
}
