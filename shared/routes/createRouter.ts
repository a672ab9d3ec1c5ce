/**
 * HTTP routing for one server definition, the same on every runtime. Routes are exact paths in a
 * table (`MCP_ROUTES`, plus the caller's own, tried first) that `GET /` describes; one request
 * goes through one pipeline: the Host, CORS preflight and Origin checks, the protected-resource
 * metadata (open to all), the caller's `before` stages, then its route (or 404/405) once the
 * `Gatekeeper` admits it (token, rate limits; only where configured), all inside the one `catch`
 * that maps anything thrown to a JSON-RPC error (`errorResponse`); then CORS headers and one debug
 * log line. A configuration that cannot be used (a malformed variable, `authorization` or
 * `rateLimits`) is found when the first request builds the environment's runtime and services: then every
 * route answers 500 with the sentence that names it (`config.invalid`, logged once per
 * environment, i.e. per isolate on Workers), and `/health` 503 with it (`health`), as it does for
 * any problem that makes the MCP routes 500.
 *
 * Routes are exact paths, so no router library: the path is cut from the URL text and looked up,
 * with no parsed URL, regular expression or await per route tried on the hot path.
 *
 * Not here: what serves an environment (its `Runtime`, which each runtime builds: sessions in
 * Durable Objects on Workers, in the process elsewhere), protocol logic (`session/`, `stateless/`,
 * `exchange/`).
 */
import type { Caller } from "../auth/Caller.ts";
import type { Gatekeeper } from "../auth/Gatekeeper.ts";
import type { RateLimitPolicy } from "../auth/RateLimitPolicy.ts";
import type { Authorization } from "../auth/Authorization.ts";
import type { ResourceServer } from "../auth/ResourceServer.ts";
import { configurationProblem } from "../config/configurationProblem.ts";
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import { acceptsHtml } from "../http/acceptsHtml.ts";
import { checkHost } from "../http/checkHost.ts";
import { type ClientAddress, clientAddress } from "../http/clientAddress.ts";
import { preflight, withCors } from "../http/cors.ts";
import { errorResponse } from "../http/errorResponse.ts";
import { checkOrigin } from "../http/originPolicy.ts";
import { Logger, serverText } from "../log/Logger.ts";
import type { ServerEnv } from "../definition/RequestContext.ts";
import type { CompiledServer } from "../server/CompiledServer.ts";
import { MAX_OPEN_LISTENS, OpenListens } from "../stateless/listen.ts";
import { RequestState, requestStateSecret } from "../stateless/RequestState.ts";
import { taskRoutingOf } from "../tasks/TaskRouting.ts";
import { durableObjectBindings, homeProblem } from "../home/deploymentProblems.ts";
import { describeServer } from "./describeServer.ts";
import { health } from "./health.ts";
import { serverPage } from "./serverPage.ts";
import { deleteMcp, getMcp, postMcp } from "./mcp.ts";
import type { Handler, HttpRuntime, Services } from "./Services.ts";
import { openSse } from "./openSse.ts";
import { postMessage } from "./postMessage.ts";
import { requestHeaders } from "../http/requestHeaders.ts";

type Env = ServerEnv;

/** Where the protected-resource metadata lives (RFC 9728 §3). */
const WELL_KNOWN = "/.well-known/";

/** A check of yours: a `Response` answers the request (e.g. a 401), nothing lets it go on. */
export type BeforeStage<E extends Env> = (request: Request, env: E) => Response | undefined | void | Promise<Response | undefined | void>;

/** A route of yours, tried before the MCP routes; `GET /` lists it with its description. */
export interface Route<E extends Env> {
  /** "GET", "POST", … or "ALL". */
  method: string;
  /** An exact path, e.g. "/ws". */
  path: string;
  description?: string;
  /** `auth`: the request's principal where the server checks tokens. */
  handle(request: Request, env: E, context: unknown, auth?: Caller["auth"]): Response | Promise<Response>;
  /** Served without a token even where the server checks them (your own login page, a webhook). Default false. */
  public?: boolean;
}

export interface RouterOptions<E extends Env> {
  /** Run after the Host and Origin checks, before any route, in order. */
  before?: readonly BeforeStage<E>[];
  routes?: readonly Route<E>[];
  /**
   * Makes the server an OAuth 2.1 resource server: every endpoint but the protected-resource
   * metadata needs a valid access token for it (see `ResourceServer`), sessions are bound to the
   * user that started them, and definitions' `scopes` apply. Made by `oauth(options)`, which
   * brings that code: a router without it carries none.
   *
   * @example authorization: oauth((env) => ({ verify: jwtVerifier({ issuer: env.ISSUER, keys: env.JWKS }) }))
   */
  authorization?: Authorization<E>;
  /**
   * Rate limits (see `Gatekeeper`), made by `rateLimits(limits)`, which brings the limiter.
   * Default: `DEFAULT_RATE_LIMITS` with authorization, none without. On Workers, a
   * `[[ratelimits]]` binding named `MCP_RATE_LIMIT_ADDRESS` or `MCP_RATE_LIMIT_PRINCIPAL` counts
   * for its limit across the location's isolates.
   *
   * @example rateLimits: rateLimits({ perAddress: { limit: 60, periodSeconds: 60 } })
   */
  rateLimits?: RateLimitPolicy<E>;
}



/**
 * The MCP endpoints, as `GET /` describes them. `public`: served without a token and outside the
 * rate limits even where the server checks them — `/health` only, which touches nothing and is
 * cheaper than the limiter's own check (monitors would get 401, and 429 behind a busy address).
 * Every other route needs a token there; a path that is no route is 404 for everyone, before any
 * token is read, so an unknown path says nothing more to a stranger than this table (and `GET /`,
 * which describes the deployment, is for signed-in clients only).
 */
const MCP_ROUTES: readonly { method: string; path: string; description: string; handle: Handler; public?: true }[] = [
  { method: "GET", path: "/mcp", description: "Streamable HTTP (2025): the session's standalone stream, or a resumed one (Last-Event-ID)", handle: getMcp },
  { method: "POST", path: "/mcp", description: "Streamable HTTP: one JSON-RPC message (2026-07-28: no session; 2025: initialize starts one)", handle: postMcp },
  { method: "DELETE", path: "/mcp", description: "Streamable HTTP (2025): ends the session", handle: deleteMcp },
  { method: "GET", path: "/sse", description: "HTTP+SSE (2024-11-05): opens a session; the first event names the POST endpoint", handle: openSse },
  { method: "POST", path: "/message", description: "HTTP+SSE: one JSON-RPC message or batch for ?sessionId=…; 202, replies on the stream", handle: postMessage },
  {
    method: "GET",
    path: "/health",
    description: "readiness for load balancers and monitors: 200, or 503 naming what keeps the MCP endpoints from serving",
    handle: (request, services) => health(services.problem ?? services.gate?.addressProblem(request)),
    public: true,
  },
];
/** Paths of the MCP routes open to all (`public`). */
const PUBLIC_PATHS: ReadonlySet<string> = new Set(MCP_ROUTES.filter((route) => route.public).map((route) => route.path));

/**
 * `runtimeFor` builds what serves one environment (`Runtime`, with its sessions); it is called
 * once per environment, and may throw a variable that cannot be used.
 *
 * @example const handle = createRouter(definition, () => ({ ...runtime, sessions })); const response = await handle(request, env);
 */
export function createRouter<E extends Env>(definition: CompiledServer, runtimeFor: (env: E) => HttpRuntime, options: RouterOptions<E> = {}): (request: Request, env: E, context?: unknown) => Promise<Response> {
  const built = new WeakMap<E, Services>();
  /** Environments whose configuration cannot be used, with the sentence that says why: logged once, answered on every request. */
  const broken = new WeakMap<E, Error>();
  const servicesOrProblem = (env: E): Services | Error => {
    // Built services first: the one lookup on every request of a working deployment.
    const known = built.get(env) ?? broken.get(env);
    if (known) return known;
    try {
      return buildServices(env);
    } catch (error) {
      const problem = configurationProblem(error);
      // Its own logger: the configuration, LOG_LEVEL included, is what could not be read.
      new Logger().error("config.invalid", { message: serverText(problem.message) });
      broken.set(env, problem);
      return problem;
    }
  };
  /** What serves `env`'s requests, built once per environment (by `servicesOrProblem`). @throws a variable or option that cannot be used */
  const buildServices = (env: E): Services => {
    const runtime = runtimeFor(env);
    const { config, logger } = runtime;
    const secret = requestStateSecret(env);
    if (secret === undefined) {
      logger.warn("config.request-state-secret", { message: serverText("REQUEST_STATE_SECRET is not set: requestState is sealed with a key drawn at random by this server (each Worker isolate, each Deno or Node process), so a retry that reaches another is refused") });
    }
    if (definition.problem) logger.error("definition.invalid", { message: serverText(definition.problem.message) });
    const requestState = new RequestState(secret, config.requestStateTtlMs);
    const authorization = authorizationFor(env, runtime, options);
    const gate = gateFor(env, options, authorization);
    // Only a server with task tools gets a task host: the rest never route a task method.
    const routing = taskRoutingOf(definition);
    const { tasks, homes } = runtime;
    // Served without them: the extension is not advertised, optional tasks run as plain calls, required ones answer -32603 with this.
    const unhosted = routing && !tasks ? `Some tools run as tasks, and ${routing.unhosted}` : undefined;
    if (unhosted) logger.error("config.tasks", { message: serverText(unhosted) });
    // Where homes are missing, the bindings there are: a misspelled one shows (Workers; elsewhere none are).
    const deployment = definition.problem ? undefined : homeProblem(definition, authorization !== undefined, homes !== undefined, homes || !definition.hasHomes ? undefined : boundObjects(env));
    if (deployment) logger.error("config.homes", { message: serverText(deployment.message) });
    const problem = definition.problem ?? deployment;
    const services: Services = { runtime, requestState, listens: new OpenListens(MAX_OPEN_LISTENS, config.maxListensPerClient), gate, problem, warnings: unhosted ? [unhosted] : [] };
    built.set(env, services);
    return services;
  };
  const userRoutes = options.routes ?? [];
  const stages = options.before ?? [];
  const described = [...userRoutes.map(({ method, path, description }) => ({ method, path, description: description ?? "" })), ...MCP_ROUTES];
  /** path → method → handler, for the MCP routes; `GET /` is one of them. */
  const table = new Map<string, Map<string, Handler>>();
  for (const route of MCP_ROUTES) {
    // While the definition (or this deployment of it) cannot be served, every MCP route says why.
    const handle: Handler =
      route.path === "/health"
        ? route.handle
        : (request, services, caller, address) => (services.problem ? invalidDefinition(services.problem) : route.handle(request, services, caller, address));
    table.set(route.path, (table.get(route.path) ?? new Map()).set(route.method, handle));
  }
  // A browser gets the page for people; everything else, curl's `*/*` included, the JSON as before.
  const describe: Handler = (request, services) =>
    acceptsHtml(request)
      ? serverPage(definition, new URL(request.url).origin, described, services)
      : describeServer(services, described);
  table.set("/", new Map([["GET", describe]]));

  /** `origin`: the request's Origin header, read once (each header read is a platform call). */
  const dispatch = async (request: Request, env: E, context: unknown, services: Services, origin: string | null): Promise<Response> => {
    const { config } = services.runtime;
    const policy = { allowed: config.allowedOrigins };
    const { method } = request;
    // Security first: a foreign Host refused, the preflight answered and a foreign Origin
    // refused, before anything else runs; then the caller's own checks, in order.
    const host = checkHost(request, config.allowedHosts);
    if (!host.ok) return errorResponse(host.error);
    const preflighted = preflight(request, policy, method, origin);
    if (preflighted) return preflighted;
    const allowed = checkOrigin(request, policy, origin);
    if (!allowed.ok) return errorResponse(allowed.error);
    const { gate } = services;
    const path = pathOf(request.url);
    // Only a well-known path can be a metadata document: the MCP requests skip the lookup.
    const metadata = gate && path.startsWith(WELL_KNOWN) ? gate.metadata(request) : undefined;
    if (metadata) return metadata;
    for (const stage of stages) {
      const answer = await stage(request, env);
      if (answer) return answer;
    }
    // The route is found before the token is checked: an unknown path is 404 for everyone.
    const route = userRoutes.find((r) => r.path === path && (r.method === "ALL" || r.method === method));
    const methods = route ? undefined : table.get(path);
    if (!route && !methods) return errorResponse(new McpError(404, ErrorCode.InvalidRequest, `No route for ${method} ${path}`));
    const handle = methods?.get(method);
    if (!route && !handle) return errorResponse(new McpError(405, ErrorCode.InvalidRequest, notAllowed(method, path, request.url, methods!), undefined, { allow: [...methods!.keys()].join(", ") }));
    let caller: Caller | undefined;
    // null until first asked for: the address itself may be undefined.
    let known: string | undefined | null = null;
    const address: ClientAddress = () => (known === null ? (known = clientAddress(request, config.trustProxy, services.runtime.clientAddress?.(request, context))) : known);
    if (gate && !(route ? route.public : PUBLIC_PATHS.has(path))) {
      const admitted = await gate.admit(request, env, address());
      if (!admitted.ok) return errorResponse(admitted.error);
      caller = admitted.value;
    }
    return route ? route.handle(request, env, context, caller?.auth) : handle!(request, services, caller, address);
  };

  return async (request, env, context) => {
    const services = servicesOrProblem(env);
    if (services instanceof Error) {
      return request.method === "GET" && pathOf(request.url) === "/health" ? health(services) : errorResponse(new McpError(500, ErrorCode.InternalError, services.message));
    }
    const { logger } = services.runtime;
    const debug = logger.enabled("debug");
    const started = debug ? Date.now() : 0;
    const origin = requestHeaders(request).get("origin");
    let response: Response;
    try {
      response = await dispatch(request, env, context, services, origin);
    } catch (error) {
      response = errorResponse(error, null, logger);
    }
    // Nothing to add or log: the common answer leaves here without another platform call.
    if (origin === null && !debug) return response;
    // An upgraded request belongs to its socket now (Deno refuses to read it again): nothing to add or log.
    if (response.status === 101) return response;
    if (debug) logger.debug("http", { method: request.method, path: pathOf(request.url), status: response.status, ms: Date.now() - started });
    return withCors(response, request, { allowed: services.runtime.config.allowedOrigins }, origin);
  };
}

/** The resource server for one environment; undefined where requests are not authenticated. */
function authorizationFor<E extends Env>(env: E, runtime: HttpRuntime, options: RouterOptions<E>): ResourceServer | undefined {
  const { authorization } = options;
  if (authorization === undefined) return undefined;
  if (typeof authorization?.resourceServer !== "function") {
    throw new TypeError('"authorization" takes oauth(options) (from durable-mcp), which brings the token checks; wrap the options you gave: authorization: oauth({ verify, … })');
  }
  return authorization.resourceServer(env, { port: runtime.port });
}

/** The token and rate checks the options configure, for one environment; undefined for none. */
function gateFor<E extends Env>(env: E, options: RouterOptions<E>, server: ResourceServer | undefined): Gatekeeper | undefined {
  const { rateLimits } = options;
  if (rateLimits !== undefined) {
    if (typeof rateLimits?.gate !== "function") {
      throw new TypeError('"rateLimits" takes rateLimits(limits) (from durable-mcp), which brings the limiter; wrap the limits you gave: rateLimits: rateLimits({ perAddress, perPrincipal })');
    }
    return rateLimits.gate(env, server);
  }
  return server ? options.authorization!.gate(server, env) : undefined;
}

/** The path of an absolute URL, cut from its text (runtimes hand handlers normalized URLs). */
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const query = url.indexOf("?", start);
  const hash = url.indexOf("#", start);
  const end = query < 0 ? hash : hash < 0 ? query : Math.min(query, hash);
  return end < 0 ? url.slice(start) : url.slice(start, end);
}

/** Every MCP request, while the definition cannot be served: the sentence that says why, until the file is fixed. */
function invalidDefinition(problem: Error): Response {
  return errorResponse(new McpError(500, ErrorCode.InternalError, problem.message));
}

/** The Durable Object bindings of a Workers environment; undefined on a runtime that binds none (its homes are its own). */
function boundObjects(env: Env): string[] | undefined {
  const bound = durableObjectBindings(env);
  return bound.length === 0 ? undefined : bound;
}

/** The 405's sentence: at `/`, where a client given the server's bare URL posts, where MCP is. */
function notAllowed(method: string, path: string, url: string, methods: Map<string, Handler>): string {
  if (path !== "/") return `Method not allowed; use ${[...methods.keys()].join(", ")}`;
  const { origin } = new URL(url);
  return `${method} / is not an MCP endpoint: send MCP messages to ${origin}/mcp (or ${origin}/sse for HTTP+SSE clients); GET / describes this server`;
}
