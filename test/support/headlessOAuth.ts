/**
 * Test helper: the browser half of an OAuth 2.1 authorization-code + PKCE flow, done headlessly, so
 * the official SDK clients (v1 `@modelcontextprotocol/sdk`, v2 `@modelcontextprotocol/client`)
 * authorize against our server inside a test. The SDKs do discovery (RFC 9728, RFC 8414), dynamic
 * registration, PKCE, the token exchange and refresh; `HeadlessOAuthProvider` does what a person's
 * browser would, and the `connect…WithOAuth` helpers do the connect → `UnauthorizedError` →
 * `finishAuth` → connect-again dance each SDK's own example does.
 *
 * The contract it holds the authorization page to: `GET` the authorization URL answers 200
 * `text/html` with exactly one `<form method="post">`; submitting its fields unchanged answers 302
 * to `<redirect_uri>?code&state&iss` (RFC 9207). Anything else throws, naming what it got.
 *
 * Not here: a general HTML parser (comments, `<script>`, `<style>` and `<template>` are skipped; a
 * form with `<select>` or `<textarea>` is refused, since it would need a person); a choice on the
 * consent page (it always approves, clicking the first submit button); a listener on the redirect
 * URI (its `Location` is read, never followed); persistence (all in memory: use one provider per
 * MCP endpoint, since the SDKs cache discovery, including the resource, in it). One file rather
 * than three because the provider, its form reader and the dance are only ever used together.
 *
 * @example
 * const provider = new HeadlessOAuthProvider({ expectedIssuer: server.url });
 * const { client } = await connectWithOAuth(new URL("/mcp", server.url), { provider });
 * provider.storedTokens = { ...provider.storedTokens!, access_token: "bogus" }; // next call: 401, refresh
 * await client.listTools();
 * expect(provider.tokenSaves).toBe(2);
 */
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
  UnauthorizedError as ModernUnauthorizedError,
  type StreamableHTTPClientTransportOptions as ModernTransportOptions,
} from "@modelcontextprotocol/client";
import { UnauthorizedError, type OAuthClientProvider, type OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport, type SSEClientTransportOptions } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport, type StreamableHTTPClientTransportOptions } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";

/** A loopback redirect URI nobody serves (RFC 8252 §7.3): the helper reads `Location`, never follows it. */
export const DEFAULT_REDIRECT_URL = "http://127.0.0.1:33418/callback";
const CLIENT_INFO = { name: "headless-oauth", version: "1.0.0" };

export interface HeadlessOAuthOptions {
  /** Where the server sends the browser back; the SDK registers it. Default {@link DEFAULT_REDIRECT_URL}. */
  redirectUrl?: string;
  /** The `iss` every callback must carry, compared as a string (RFC 9207 §2.4). Unchecked when absent. */
  expectedIssuer?: string;
  /** Merged over the defaults: a public client (`none`) with `authorization_code` and `refresh_token`. */
  clientMetadata?: Partial<OAuthClientMetadata>;
  /** The fetch the browser part uses. Default: the global one. The SDK's requests use the transport's. */
  fetch?: typeof fetch;
  /** What the person types into the consent form (its fields by name, e.g. `{ user: "alice" }`); the rest is submitted as the page set it. */
  typed?: Record<string, string>;
}

/**
 * An `OAuthClientProvider` (v1; structurally v2's too) keeping everything in memory, whose
 * `redirectToAuthorization` approves the consent page and keeps the callback for `takeCode()`.
 * Neither SDK reads `expires_in`: a refresh happens only after a 401, so to exercise it replace
 * `storedTokens.access_token` with one the server refuses.
 */
export class HeadlessOAuthProvider implements OAuthClientProvider {
  /** The client as registered (DCR), stamped with `issuer` by the SDK. */
  clientInfo: OAuthClientInformationMixed | undefined;
  /** The tokens as last saved; edit freely (keep `issuer`, or the SDK treats them as foreign). */
  storedTokens: OAuthTokens | undefined;
  /** Every authorization URL the SDK sent the browser to, in order. */
  readonly authorizationUrls: URL[] = [];
  /** The last callback: `code`, `state`, `iss`. */
  callback: URLSearchParams | undefined;
  /** How many times `saveTokens` ran: once per code exchange, once per refresh. */
  tokenSaves = 0;
  readonly expectedIssuer: string | undefined;
  private readonly redirect: string;
  private readonly metadataOverrides: Partial<OAuthClientMetadata>;
  private readonly browserFetch: typeof fetch;
  private readonly typed: Record<string, string>;
  private verifier: string | undefined;
  private discovery: OAuthDiscoveryState | undefined;
  private lastState: string | undefined;
  private pending: URLSearchParams | undefined;

  constructor(options: HeadlessOAuthOptions = {}) {
    this.redirect = options.redirectUrl ?? DEFAULT_REDIRECT_URL;
    this.expectedIssuer = options.expectedIssuer;
    this.metadataOverrides = options.clientMetadata ?? {};
    this.browserFetch = options.fetch ?? fetch;
    this.typed = options.typed ?? {};
  }

  get redirectUrl(): string {
    return this.redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    const defaults = { client_name: "durable-mcp headless test client", redirect_uris: [this.redirect], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
    return { ...defaults, ...this.metadataOverrides };
  }
  /** The last authorization URL, or undefined before the first. */
  get authorizationUrl(): URL | undefined {
    return this.authorizationUrls.at(-1);
  }
  get authorizations(): number {
    return this.authorizationUrls.length;
  }
  /** The code of the last callback (taken or not). */
  get code(): string | undefined {
    return this.callback?.get("code") ?? undefined;
  }

  state(): string {
    this.lastState = crypto.randomUUID();
    return this.lastState;
  }
  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.clientInfo;
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.clientInfo = info;
  }
  tokens(): OAuthTokens | undefined {
    return this.storedTokens;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.storedTokens = tokens;
    this.tokenSaves++;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error("no PKCE code verifier saved: the SDK asked for one before starting an authorization");
    return this.verifier;
  }
  // v2 refuses a code whose authorization server it cannot compare with the one recorded here at redirect time.
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }
  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "all" || scope === "client") this.clientInfo = undefined;
    if (scope === "all" || scope === "tokens") this.storedTokens = undefined;
    if (scope === "all" || scope === "verifier") this.verifier = undefined;
    if (scope === "all" || scope === "discovery") this.discovery = undefined;
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    this.authorizationUrls.push(new URL(authorizationUrl));
    const sent = authorizationUrl.searchParams.get("state");
    if (sent === null || sent !== this.lastState) throw new Error(`the authorization URL carries state ${sent}, not the ${this.lastState} this provider issued`);
    const callback = (await approve(authorizationUrl, new URL(this.redirect), this.browserFetch, this.typed)).searchParams;
    const iss = callback.get("iss");
    if (this.expectedIssuer !== undefined && iss !== this.expectedIssuer) throw new Error(`the callback's iss is ${iss}, not the expected issuer ${this.expectedIssuer}`);
    if (callback.get("error") !== null) throw new Error(`the authorization server answered error=${callback.get("error")}: ${callback.get("error_description") ?? "(no description)"}`);
    if (callback.get("state") !== sent) throw new Error(`the callback's state is ${callback.get("state")}, not the ${sent} the request carried`);
    if (!callback.get("code")) throw new Error(`the callback ${callback} carries no code`);
    this.callback = this.pending = callback;
  }

  /** The code waiting to be redeemed with `transport.finishAuth(code)`; each callback is taken once. */
  takeCode(): string {
    return this.takeCallback().get("code")!;
  }
  /** The whole waiting callback, for v2's preferred `finishAuth(params)`, which checks `iss` itself. */
  takeCallback(): URLSearchParams {
    const pending = this.pending;
    if (!pending) throw new Error("no authorization code is waiting: the SDK did not call redirectToAuthorization since the last one was taken");
    this.pending = undefined;
    return pending;
  }
}

/**
 * The browser: open the consent page, submit its single form (unchanged, but for the fields the
 * person `typed`), and answer the URL it redirects to (the redirect URI with the code, `state` and
 * `iss`), without following it.
 */
export async function approve(authorizationUrl: URL, redirectUrl: URL, fetchFn: typeof fetch = fetch, typed: Record<string, string> = {}): Promise<URL> {
  const page = await fetchFn(authorizationUrl, { redirect: "manual", headers: { accept: "text/html" } });
  const html = await page.text();
  if (page.status !== 200) throw new Error(`GET ${authorizationUrl.pathname} answered ${page.status} (Location: ${page.headers.get("location")}), not 200 with the consent form`);
  if (!/^text\/html\b/i.test(page.headers.get("content-type") ?? "")) throw new Error(`GET ${authorizationUrl.pathname} answered ${page.headers.get("content-type")}, not text/html`);
  const form = parseSingleForm(html, authorizationUrl);
  if (form.method !== "post") throw new Error(`the consent form's method is ${form.method}, not post`);
  // A browser would send back what the page set: carry the cookies (a CSRF pair, say) to the submit.
  // Iterating Headers yields each Set-Cookie on its own (Fetch standard), unlike get().
  const cookie = [...page.headers].flatMap(([name, line]) => (name === "set-cookie" ? [line.split(";", 1)[0]] : [])).join("; ");
  const fields = new URLSearchParams(form.fields);
  for (const [name, value] of Object.entries(typed)) fields.set(name, value);
  const approval = await fetchFn(form.action, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", ...(cookie && { cookie }) },
    body: fields.toString(),
  });
  const body = await approval.text();
  const location = approval.headers.get("location");
  if (approval.status !== 302 || !location) throw new Error(`submitting the consent form to ${form.action} answered ${approval.status}${location ? ` to ${location}` : ""}, not 302 to the redirect URI: ${body.slice(0, 200)}`);
  const target = new URL(location, form.action);
  if (target.origin !== redirectUrl.origin || target.pathname !== redirectUrl.pathname) throw new Error(`the consent form redirected to ${target.origin}${target.pathname}, not the redirect URI ${redirectUrl}`);
  return target;
}

export interface ParsedForm {
  /** Lowercased; `get` when absent, as in HTML. */
  method: string;
  /** The `action` resolved against the page URL (the page itself when empty). */
  action: URL;
  /** What a browser would submit when the first submit button is clicked, in document order. */
  fields: [string, string][];
}

// A tag's attributes, `>` allowed inside quoted values.
const TAG_ATTRIBUTES = String.raw`((?:[^>"']|"[^"]*"|'[^']*')*)`;

/** Reads the one `<form>` of a consent page; throws unless there is exactly one, closed, with a submit button. */
export function parseSingleForm(html: string, pageUrl: URL): ParsedForm {
  const text = html.replace(/<!--[\s\S]*?-->/g, "").replace(/<(script|style|template)\b[\s\S]*?<\/\1\s*>/gi, "");
  const opens = [...text.matchAll(new RegExp(`<form\\b${TAG_ATTRIBUTES}>`, "gi"))];
  if (opens.length !== 1) throw new Error(`the page at ${pageUrl} has ${opens.length} <form> elements, not exactly one`);
  const open = opens[0]!;
  const start = open.index! + open[0].length;
  const length = text.slice(start).search(/<\/form\s*>/i);
  if (length < 0) throw new Error(`the <form> on ${pageUrl} is never closed`);
  const inner = text.slice(start, start + length);
  if (/<(select|textarea)\b/i.test(inner)) throw new Error(`the <form> on ${pageUrl} has a <select> or <textarea>: it asks for a choice this helper cannot make`);
  const attributes = parseAttributes(open[1]!);
  const fields: [string, string][] = [];
  let clicked = false;
  for (const control of inner.matchAll(new RegExp(`<(input|button)\\b${TAG_ATTRIBUTES}>`, "gi"))) {
    const a = parseAttributes(control[2]!);
    const name = a.get("name");
    const type = (a.get("type") ?? (control[1]!.toLowerCase() === "button" ? "submit" : "text")).toLowerCase();
    if (a.has("disabled")) continue;
    if (type === "submit") {
      if (!clicked && name) fields.push([name, a.get("value") ?? ""]);
      clicked = true;
      continue;
    }
    if (!name || ["button", "reset", "file", "image"].includes(type)) continue;
    const checkable = type === "checkbox" || type === "radio";
    if (checkable && !a.has("checked")) continue;
    fields.push([name, a.get("value") ?? (checkable ? "on" : "")]);
  }
  if (!clicked) throw new Error(`the <form> on ${pageUrl} has no submit button`);
  return { method: (attributes.get("method") ?? "get").toLowerCase(), action: new URL(attributes.get("action") ?? "", pageUrl), fields };
}

function parseAttributes(source: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const [, name, double, single, bare] of source.matchAll(/([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g)) {
    const key = name!.toLowerCase();
    // The first occurrence wins, as in HTML.
    if (!attributes.has(key)) attributes.set(key, decodeReferences(double ?? single ?? bare ?? ""));
  }
  return attributes;
}

const NAMED_REFERENCES: Record<string, string> = { amp: "&", quot: '"', lt: "<", gt: ">", apos: "'" };

/** The escapes the contract names (&amp; &quot; &lt; &gt; &#39;), `&apos;` and numeric references; others throw. */
function decodeReferences(value: string): string {
  return value.replace(/&(#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);/g, (whole, reference: string) => {
    if (reference.startsWith("#")) {
      const hex = reference[1] === "x" || reference[1] === "X";
      const codePoint = Number.parseInt(reference.slice(hex ? 2 : 1), hex ? 16 : 10);
      if (codePoint > 0x10ffff) throw new Error(`the character reference ${whole} names no character`);
      return String.fromCodePoint(codePoint);
    }
    const named = NAMED_REFERENCES[reference];
    if (named === undefined) throw new Error(`the attribute value ${JSON.stringify(value)} uses ${whole}; only &amp; &quot; &lt; &gt; &apos; and numeric references are decoded`);
    return named;
  });
}

export interface OAuthConnectOptions<TClient, TTransportOptions> {
  /** Default: a new `HeadlessOAuthProvider()`. Pass one to check `iss` or to reuse its tokens. */
  provider?: HeadlessOAuthProvider;
  /** Default: a new client of the SDK in question. It is closed and reconnected after the code is redeemed. */
  client?: TClient;
  transportOptions?: Omit<TTransportOptions, "authProvider">;
}

/** What differs between the SDKs' dances: the transport, how a code is redeemed, and the 401's error. */
interface Dance<TClient, TTransport> {
  client: () => TClient;
  open: (provider: HeadlessOAuthProvider) => TTransport;
  redeem: (transport: TTransport, provider: HeadlessOAuthProvider) => Promise<void>;
  isUnauthorized: (error: unknown) => boolean;
}

/**
 * Connects on a fresh transport; when that throws the SDK's `UnauthorizedError` (the provider has
 * approved the consent page meanwhile), closes the client — a v1 SSE client stays bound to the
 * transport whose `start()` failed otherwise — redeems the code on that transport (`finishAuth`: it
 * holds the `resource_metadata` of the 401) and connects once more on a new one.
 */
async function authorizeAndConnect<TClient extends { connect(t: TTransport): Promise<void>; close(): Promise<void> }, TTransport>(
  dance: Dance<TClient, TTransport>,
  options: { provider?: HeadlessOAuthProvider; client?: TClient },
) {
  const provider = options.provider ?? new HeadlessOAuthProvider();
  const client = options.client ?? dance.client();
  const first = dance.open(provider);
  try {
    await client.connect(first);
    return { client, transport: first, provider };
  } catch (error) {
    if (!dance.isUnauthorized(error)) throw error;
  }
  await client.close();
  await dance.redeem(first, provider);
  const transport = dance.open(provider);
  await client.connect(transport);
  return { client, transport, provider };
}

/** v1 client over Streamable HTTP (`/mcp`), authorized. */
export function connectWithOAuth(url: URL, options: OAuthConnectOptions<Client, StreamableHTTPClientTransportOptions> = {}) {
  return authorizeAndConnect<Client, StreamableHTTPClientTransport>(
    {
      client: () => new Client(CLIENT_INFO),
      open: (provider) => new StreamableHTTPClientTransport(url, { ...options.transportOptions, authProvider: provider }),
      redeem: (t, provider) => t.finishAuth(provider.takeCode()),
      isUnauthorized: (error) => error instanceof UnauthorizedError,
    },
    options,
  );
}

/** v1 client over the legacy HTTP+SSE transport (`GET /sse`), authorized. */
export function connectSseWithOAuth(url: URL, options: OAuthConnectOptions<Client, SSEClientTransportOptions> = {}) {
  return authorizeAndConnect<Client, SSEClientTransport>(
    {
      client: () => new Client(CLIENT_INFO),
      open: (provider) => new SSEClientTransport(url, { ...options.transportOptions, authProvider: provider }),
      redeem: (t, provider) => t.finishAuth(provider.takeCode()),
      isUnauthorized: (error) => error instanceof UnauthorizedError,
    },
    options,
  );
}

/** v2 client over Streamable HTTP, authorized; pass a client to choose its `versionNegotiation`. */
export function connectModernWithOAuth(url: URL, options: OAuthConnectOptions<ModernClient, ModernTransportOptions> = {}) {
  return authorizeAndConnect<ModernClient, ModernTransport>(
    {
      client: () => new ModernClient(CLIENT_INFO),
      open: (provider) => new ModernTransport(url, { ...options.transportOptions, authProvider: provider }),
      // v2 checks `iss` itself, from the whole callback.
      redeem: (t, provider) => t.finishAuth(provider.takeCallback()),
      // v2's error classes match by brand, so this holds across copies of the package.
      isUnauthorized: (error) => error instanceof ModernUnauthorizedError,
    },
    options,
  );
}
