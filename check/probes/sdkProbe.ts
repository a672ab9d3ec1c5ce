/**
 * The official TypeScript SDK client (`@modelcontextprotocol/client`, v2) connecting as hosts
 * built on it do: on Streamable HTTP with its version probe (`auto`: `server/discover`, falling
 * back to `initialize`, as Claude Code does), on Streamable HTTP in the 2025 era (`legacy`, as
 * VS Code does), and on the deprecated HTTP+SSE transport (as clients that speak only it do).
 * Each lists what the server's capabilities advertise, and closes. The SDK validates every
 * answer against the schema, so a malformed list fails here as it would in a host.
 */
import { Client, SSEClientTransport, SseError, StreamableHTTPClientTransport, type Transport } from "@modelcontextprotocol/client";
import { type CheckTarget } from "../wire/CheckTarget.ts";
import { counted, fail, type Finding, pass, warn } from "../wire/Finding.ts";
import { CLIENT_INFO } from "../wire/requests.ts";

type Mode = "auto" | "legacy";

/** How much of an SDK error a finding quotes. */
const MAX_MESSAGE_CHARS = 400;

const PROBE_SSE = "sse";
/** Why a server without HTTP+SSE, one whose HTTP+SSE fails, and one whose /sse wants its own token matter. */
const NO_SSE = "Clients that speak only the deprecated HTTP+SSE transport (older Cursor and Cline setups, agent frameworks) cannot connect; 2026-07-28 drops the transport, and many servers no longer serve it. Pass --skip sse if you mean not to serve it.";
const SSE_BROKEN = "Clients that speak only the deprecated HTTP+SSE transport (older Cursor and Cline setups, agent frameworks) cannot connect. Serve it, or pass --skip sse if you mean not to.";
const SSE_SIGN_IN = "Behind sign-in, /sse is its own protected resource (RFC 9728): a token issued for the MCP URL is not valid there, and clients sign in for it separately. Get a token for it and pass it with --sse-token.";

/** Redirects within the origin only, as `send` follows them: the user's headers stay with the origin they named. */
const REDIRECT_POLICY = "same-origin";

/** Streamable HTTP, both negotiation modes: probe `sdk`. */
export async function sdkProbe(target: CheckTarget): Promise<Finding[]> {
  const options = { requestInit: { headers: target.headers }, redirectPolicy: REDIRECT_POLICY } as const;
  return [
    await connectAndList(target, "sdk", "auto", () => new StreamableHTTPClientTransport(target.url, options), "Streamable HTTP (version probe)"),
    await connectAndList(target, "sdk", "legacy", () => new StreamableHTTPClientTransport(target.url, options), "Streamable HTTP (2025 era)"),
  ];
}

/**
 * HTTP+SSE at `target.sseUrl`: probe `sse`. A server without it (404, 405) gets a warning: the
 * transport is deprecated, and servers drop it. So does a 401 when no `--sse-token` was given:
 * behind sign-in `/sse` is a protected resource of its own, and a token for the MCP URL is refused.
 */
export async function sseProbe(target: CheckTarget): Promise<Finding[]> {
  // The transport sends `requestInit`'s headers with the stream's GET as well as with each POST.
  const headers = target.sseToken ? withBearer(target.headers, target.sseToken) : target.headers;
  const transport = () => new SSEClientTransport(target.sseUrl, { requestInit: { headers }, redirectPolicy: REDIRECT_POLICY });
  const label = `HTTP+SSE at ${target.sseUrl.pathname}`;
  return [await connectAndList(target, "sse", "legacy", transport, label, (status) => {
    if (status === 404 || status === 405) return warn(PROBE_SSE, `no HTTP+SSE at ${target.sseUrl.pathname} (HTTP ${status})`, NO_SSE);
    if (status === 401 && !target.sseToken) return warn(PROBE_SSE, `${label} wants a token of its own (HTTP 401): pass --sse-token to check it`, SSE_SIGN_IN);
    return undefined;
  })];
}

/**
 * Connects, lists and closes; a failure is the probe's failure, unless `onStatus` turns the HTTP
 * status the transport was refused with into another finding.
 */
async function connectAndList(target: CheckTarget, probe: string, mode: Mode, transport: () => Transport, label: string, onStatus?: (status: number) => Finding | undefined): Promise<Finding> {
  const client = new Client(CLIENT_INFO, { capabilities: {}, versionNegotiation: { mode } });
  const timeout = { timeout: target.timeoutMs };
  try {
    await client.connect(transport(), timeout);
    const capabilities = client.getServerCapabilities() ?? {};
    const counts: string[] = [];
    if (capabilities.tools) counts.push(counted((await client.listTools(undefined, timeout)).tools.length, "tool"));
    if (capabilities.prompts) counts.push(counted((await client.listPrompts(undefined, timeout)).prompts.length, "prompt"));
    if (capabilities.resources) counts.push(counted((await client.listResources(undefined, timeout)).resources.length, "resource"));
    return pass(probe, `SDK client on ${label}: ${client.getNegotiatedProtocolVersion()}, ${counts.join(", ") || "no lists"}`);
  } catch (error) {
    const refused = error instanceof SseError && typeof error.code === "number" ? onStatus?.(error.code) : undefined;
    if (refused) return refused;
    const why = probe === PROBE_SSE ? SSE_BROKEN : "Hosts built on the official SDK fail the same way.";
    return fail(probe, `SDK client on ${label}: ${oneLine(error instanceof Error ? error.message : String(error))}`, why);
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** `headers` with its Authorization (whatever its case) replaced by `Bearer <token>`. */
function withBearer(headers: Record<string, string>, token: string): Record<string, string> {
  const others = Object.entries(headers).filter(([name]) => name.toLowerCase() !== "authorization");
  return { ...Object.fromEntries(others), authorization: `Bearer ${token}` };
}

/** The SDK's message on one line (its validation errors are indented JSON), at most `MAX_MESSAGE_CHARS`. */
function oneLine(message: string): string {
  const line = message.replace(/\s+/g, " ").trim();
  return line.length > MAX_MESSAGE_CHARS ? `${line.slice(0, MAX_MESSAGE_CHARS)}…` : line;
}
