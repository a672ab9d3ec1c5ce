/**
 * The authorization endpoint's page: one plain HTML form. `GET /authorize` checks the client's
 * request (the provider parses it: client, redirect URI, PKCE, resource) and shows who is asking,
 * where the answer goes and which scopes; submitting the form as it is approves, as the name it
 * shows (the grant's user id is made from it: `userIds.ts`). `POST /authorize` completes the grant and redirects to the
 * client with the code, `state` and `iss` (RFC 9207).
 *
 * The form is bound to the browser that loaded it (the provider's consent handle and its
 * `__Host-` cookie, one use each) and may not be framed, so another site cannot submit it for a
 * visitor. What it lacks is a login: whoever reaches it is whoever they type. Before real use,
 * put your login where `userOf` is — Cloudflare Access in front of `/authorize` (read its
 * `Cf-Access-Authenticated-User-Email` header), or an upstream OAuth provider through the
 * provider's `beginUpstream`/`finishUpstream` — or at least set `CONSENT_PASSWORD`.
 */
import type { AuthRequest, OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { BASE_SCOPE, SCOPES } from "./server.ts";
import { consentUserId } from "./userIds.ts";

export interface ConsentEnv {
  /** When set, the form asks for it: a shared password in place of a login (`wrangler secret put CONSENT_PASSWORD`). */
  CONSENT_PASSWORD?: string;
}

const MAX_USER_CHARS = 64;
const DEFAULT_USER = "demo";
const HTML_HEADERS = { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" };

export async function consent(request: Request, helpers: OAuthHelpers, env: ConsentEnv): Promise<Response> {
  if (request.method === "GET") return page(request, helpers, env);
  if (request.method === "POST") return decide(request, helpers, env);
  return new Response("Method not allowed", { status: 405, headers: { allow: "GET, POST" } });
}

async function page(request: Request, helpers: OAuthHelpers, env: ConsentEnv): Promise<Response> {
  let authRequest: AuthRequest;
  try {
    authRequest = await helpers.parseAuthRequest(request);
  } catch (error) {
    // A malformed request, an unknown client or redirect URI: never redirect to an unchecked URI.
    return problem(400, `This authorization request cannot be served: ${error instanceof Error ? error.message : String(error)}`);
  }
  const shown = await helpers.describeConsent(authRequest);
  const { handle, headers } = await helpers.beginConsent(authRequest);
  const scopes = granted(authRequest.scope);
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Authorize ${escape(shown.clientName)}</title></head>
<body style="font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;line-height:1.5">
<h1>Authorize ${escape(shown.clientName)}</h1>
<p><strong>${escape(shown.clientName)}</strong>${shown.clientDomain ? ` (${escape(shown.clientDomain)})` : " (name not verified)"} asks to use this MCP server for you.</p>
<p>Your answer goes to <strong>${escape(shown.redirectHost)}</strong>${shown.redirectIsLoopback ? " — a program on your own computer; any local program could be listening" : ""}.</p>
<p>Scopes: ${scopes.map((s) => `<code>${escape(s)}</code>`).join(", ")}</p>
<form method="post" action="/authorize">
<input type="hidden" name="handle" value="${escape(handle)}">
<p><label>Your name <input type="text" name="user" value="${DEFAULT_USER}" maxlength="${MAX_USER_CHARS}" required></label></p>
${env.CONSENT_PASSWORD ? `<p><label>Password <input type="password" name="password" required></label></p>` : ""}
<p><button type="submit" name="decision" value="approve">Approve</button> <button type="submit" name="decision" value="deny">Deny</button></p>
</form>
</body></html>`;
  const response = new Response(html, { headers: HTML_HEADERS });
  headers.forEach((value, name) => (name === "set-cookie" ? response.headers.append(name, value) : response.headers.set(name, value)));
  return response;
}

async function decide(request: Request, helpers: OAuthHelpers, env: ConsentEnv): Promise<Response> {
  const form = await request.formData();
  const handle = String(form.get("handle") ?? "");
  try {
    if (form.get("decision") === "deny") {
      const denied = await helpers.denyConsent(request, handle);
      return new Response(null, { status: 302, headers: denied.headers });
    }
    const user = userOf(form, env);
    if (typeof user !== "string") return problem(user.status, user.message);
    const approved = await helpers.approveConsent(request, handle);
    const { redirectTo } = await helpers.completeAuthorization({
      request: approved.request,
      userId: consentUserId(user),
      metadata: { approvedAt: new Date().toISOString() },
      scope: granted(approved.request.scope),
      props: { user },
    });
    const headers = new Headers(approved.headers);
    headers.set("location", redirectTo);
    return new Response(null, { status: 302, headers });
  } catch (error) {
    return problem(400, `This form cannot be used again, or was not loaded in this browser: ${error instanceof Error ? error.message : String(error)}. Start again from your MCP client.`);
  }
}

/**
 * Who approves. This is where a real login goes (see the module header): here, the name typed,
 * behind `CONSENT_PASSWORD` when one is set.
 */
function userOf(form: FormData, env: ConsentEnv): string | { status: number; message: string } {
  if (env.CONSENT_PASSWORD && !sameText(String(form.get("password") ?? ""), env.CONSENT_PASSWORD)) return { status: 403, message: "Wrong password." };
  const user = String(form.get("user") ?? "").trim();
  if (user === "" || user.length > MAX_USER_CHARS) return { status: 400, message: `Give a name of 1 to ${MAX_USER_CHARS} characters.` };
  return user;
}

/** What a grant holds: the requested scopes this server knows, or its base scope when none of them was asked for. */
function granted(requested: readonly string[]): string[] {
  const known = requested.filter((scope) => SCOPES.includes(scope));
  return known.length > 0 ? known : [BASE_SCOPE];
}

/** Compares without stopping at the first difference, so the time taken says nothing of the password. */
function sameText(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

function problem(status: number, message: string): Response {
  return new Response(`<!doctype html><meta charset="utf-8"><title>Authorization</title><p>${escape(message)}</p>`, { status, headers: HTML_HEADERS });
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
