/**
 * `durable-mcp check --sign-in`: signs in as a host does, before the probes run. The SDK's
 * `auth()` drives the authorization code flow with PKCE (`CheckOAuthProvider`); the user approves
 * in their browser (opened, unless told not to; the URL is always printed); the answer comes back
 * to a loopback listener (`LoopbackRedirect`). Behind sign-in the HTTP+SSE endpoint is a protected
 * resource of its own, so it needs a token of its own: the check first asks for one with the
 * grant it already has (a refresh naming `/sse`, RFC 8707 §2.2) and only when the authorization
 * server refuses that (`invalid_target`: a grant is bound to one resource) sends the user to a
 * second consent. The findings say which it took.
 *
 * Tokens live in memory for the run: never printed, never written anywhere.
 *
 * @example
 * const { findings, token, sseToken } = await signIn(target, { openBrowser: false }); // prints the URL to stderr
 */
import { auth, extractWWWAuthenticateParams, type FetchLike, IssuerMismatchError, OAuthError } from "@modelcontextprotocol/client";
import { type CheckTarget, send } from "../wire/CheckTarget.ts";
import { fail, type Finding, pass } from "../wire/Finding.ts";
import { initialize } from "../wire/requests.ts";
import { CheckOAuthProvider } from "./CheckOAuthProvider.ts";
import { LoopbackRedirect } from "./LoopbackRedirect.ts";
import { openInBrowser } from "./openInBrowser.ts";
import { SignInError } from "./SignInError.ts";

/** How long the check waits for the user to approve in the browser, each consent. */
export const DEFAULT_SIGN_IN_TIMEOUT_MS = 300_000;
/** The longest wait `--sign-in-timeout` may ask for: a consent is a person's minute, not a day's. */
export const MAX_SIGN_IN_TIMEOUT_MS = 3_600_000;
const PROBE = "sign-in";

export interface SignInOptions {
  /** A public client registered beforehand, with the redirect URI `http://127.0.0.1:<port>/callback`. Default: dynamic registration. */
  clientId?: string;
  /** The loopback port of the redirect URI. Default 0: any free port. */
  redirectPort?: number;
  /** Open the consent page in the user's browser (default true); the URL is printed either way. */
  openBrowser?: boolean;
  /** How long to wait for each consent. Default {@link DEFAULT_SIGN_IN_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Where the sign-in talks to the user (the URL to open). Default: standard error, so `--json` stays clean. */
  say?: (line: string) => void;
}

export interface SignedIn {
  findings: Finding[];
  /** The access token for the MCP URL, when the sign-in succeeded. */
  token?: string;
  /** The access token for the HTTP+SSE endpoint, when it asks for one and the sign-in got it. */
  sseToken?: string;
}

/**
 * Signs in for `target.url`, then for `target.sseUrl` when it asks for a token too. A failure is a
 * `sign-in` finding, never a throw; when only `/sse`'s fails, the MCP URL's token still comes back.
 */
export async function signIn(target: CheckTarget, options: SignInOptions = {}): Promise<SignedIn> {
  const say = options.say ?? ((line: string) => process.stderr.write(`${line}\n`));
  const fetchFn: FetchLike = (url, init) => fetch(url, { ...init, signal: AbortSignal.timeout(target.timeoutMs) });
  let redirect: LoopbackRedirect | undefined;
  try {
    redirect = await LoopbackRedirect.open(options.redirectPort ?? 0);
    const session: Session = { target, redirect, fetchFn, say, openBrowser: options.openBrowser ?? true, timeoutMs: options.timeoutMs ?? DEFAULT_SIGN_IN_TIMEOUT_MS };
    const mcp = new CheckOAuthProvider({ redirectUrl: redirect.redirectUrl, clientId: options.clientId });
    const first = await attempt(async () => {
      const challenge = await initialize(target, { anonymous: true });
      await authorize(session, mcp, target.url, new Response(null, { status: challenge.status, headers: challenge.headers }));
      if (!mcp.tokens()?.access_token) throw new SignInError("the token response carried no access token");
      const client = options.clientId ? `client ${options.clientId}` : "a client registered on the spot";
      return `${target.url.pathname}: authorization code with PKCE S256, ${client}, one consent in the browser`;
    });
    const token = mcp.tokens()?.access_token;
    if (first.verdict !== "pass" || !token) return { findings: [first] };
    const sse = new CheckOAuthProvider({ redirectUrl: redirect.redirectUrl, clientId: options.clientId });
    const second = await attempt(() => signInForSse(session, mcp, sse));
    const sseToken = sse.tokens()?.access_token;
    return { findings: second ? [first, second] : [first], token, ...(second?.verdict === "pass" && sseToken ? { sseToken } : {}) };
  } catch (error) {
    return { findings: [failure(error)] };
  } finally {
    await redirect?.close();
  }
}

/**
 * `/sse`'s token for `sse`, which shares `mcp`'s client: first a refresh of `mcp`'s grant naming
 * `/sse` (the SDK's first try when the provider holds a refresh token), then a consent of its own.
 * Resolves the finding's summary, or undefined when `/sse` asks for no token.
 */
async function signInForSse(session: Session, mcp: CheckOAuthProvider, sse: CheckOAuthProvider): Promise<string | undefined> {
  const { target } = session;
  const challenge = await send(target, target.sseUrl, { anonymous: true, headers: { accept: "text/event-stream" } });
  await challenge.body?.cancel();
  if (challenge.status !== 401) return undefined;
  sse.client = mcp.client;
  const granted = mcp.tokens()!;
  if (granted.refresh_token) sse.saveTokens(granted);
  let refused: string | undefined;
  try {
    await authorize(session, sse, target.sseUrl, challenge);
    if (!sse.consented && !(await accepted(target, sse.tokens()?.access_token))) {
      // An authorization server that ignores `resource` answers the refresh with a token for the first resource.
      refused = `${target.sseUrl.pathname} refused the token it returned`;
      sse.invalidateCredentials("tokens");
      await authorize(session, sse, target.sseUrl, challenge);
    }
  } catch (error) {
    if (!(error instanceof OAuthError) || sse.consented) throw error;
    // The authorization server will not stretch the grant to /sse (each grant bound to one resource): a consent of its own.
    refused = `${error.code}: ${error.message}`;
    sse.invalidateCredentials("tokens");
    await authorize(session, sse, target.sseUrl, challenge);
  }
  if (!sse.tokens()?.access_token) throw new SignInError(`the token response for ${target.sseUrl.pathname} carried no access token`);
  const how = !sse.consented
    ? "its token from a refresh of the first grant naming it (RFC 8707), no second consent"
    : refused
      ? `a second consent, since a refresh naming it did not do (${refused})`
      : granted.refresh_token
        ? "a second consent, since the refresh naming it failed"
        : "a second consent, since the first grant came with no refresh token";
  return `${target.sseUrl.pathname}, a protected resource of its own: ${how}`;
}

/** Runs one step of the sign-in: its summary as a pass, nothing when it had nothing to do, its error as a failure. */
async function attempt(step: () => Promise<string>): Promise<Finding>;
async function attempt(step: () => Promise<string | undefined>): Promise<Finding | undefined>;
async function attempt(step: () => Promise<string | undefined>): Promise<Finding | undefined> {
  try {
    const summary = await step();
    return summary === undefined ? undefined : pass(PROBE, summary);
  } catch (error) {
    return failure(error);
  }
}

function failure(error: unknown): Finding {
  if (error instanceof SignInError) return fail(PROBE, error.message, error.why);
  if (error instanceof IssuerMismatchError && error.kind === "authorization_response") {
    const received = error.received === undefined ? "missing" : JSON.stringify(error.received);
    return fail(PROBE, `the redirect's iss is ${received}, not the issuer ${error.expected} (RFC 9207 §2.4)`, "The answer may come from another authorization server (a mix-up attack): its code was not redeemed.");
  }
  return fail(PROBE, `the sign-in could not finish: ${error instanceof Error ? error.message : String(error)}`, "Hosts built on the official SDK stop at the same step.");
}

/** Whether `target.sseUrl` takes `token`: its stream opens (the body is cancelled at once). */
async function accepted(target: CheckTarget, token: string | undefined): Promise<boolean> {
  if (!token) return false;
  const response = await send(target, target.sseUrl, { anonymous: true, headers: { accept: "text/event-stream", authorization: `Bearer ${token}` } });
  await response.body?.cancel();
  return response.status !== 401 && response.status !== 403;
}

interface Session {
  target: CheckTarget;
  redirect: LoopbackRedirect;
  fetchFn: FetchLike;
  say: (line: string) => void;
  openBrowser: boolean;
  timeoutMs: number;
}

/**
 * Gets `provider` a token for `serverUrl`: the SDK discovers (from the 401 `challenged`), registers
 * when it has no client, and refreshes when the provider holds a refresh token; otherwise it sends
 * the user to consent, and the code that comes back to the listener is redeemed.
 */
async function authorize(session: Session, provider: CheckOAuthProvider, serverUrl: URL, challenged: Response): Promise<void> {
  const { resourceMetadataUrl } = extractWWWAuthenticateParams(challenged);
  let waiting: Promise<URLSearchParams> | undefined;
  provider.show = async (url) => {
    // Listen before the user can answer; the rejection is awaited below, or dropped with the sign-in.
    waiting = session.redirect.callback(provider.lastState!, session.timeoutMs);
    waiting.catch(() => undefined);
    const opened = session.openBrowser && (await openInBrowser(url));
    // Printed as serialized: a URL's href percent-encodes controls, spaces and all but ASCII, so the server cannot drive the terminal with it.
    session.say(`Sign in for ${serverUrl}: ${opened ? "approve in the browser just opened, or open" : "open"} this URL in your browser:\n\n  ${url.href}\n\nWaiting up to ${session.timeoutMs / 1000} s for the answer at ${session.redirect.redirectUrl} ...`);
  };
  const result = await auth(provider, { serverUrl, resourceMetadataUrl, fetchFn: session.fetchFn });
  if (result === "AUTHORIZED") return;
  if (!waiting) throw new SignInError("the SDK asked for a redirect without sending the user anywhere");
  const callback = await waiting;
  await auth(provider, { serverUrl, resourceMetadataUrl, fetchFn: session.fetchFn, authorizationCode: callback.get("code")!, iss: callback.get("iss") ?? undefined });
}
