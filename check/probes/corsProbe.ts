/**
 * What a browser-based client (the MCP Inspector, a web app) needs, and what users report going
 * wrong: the preflight for a POST with the MCP headers, then the POST.
 * A server may refuse the origin (its DNS-rebinding defence), and that is only a warning; what
 * fails is a server that says yes and then no: a preflight granting the origin without the MCP
 * headers, a POST refused after a granted preflight, a response a browser cannot read
 * (`Mcp-Session-Id` or `WWW-Authenticate` not exposed), or `Origin: null` accepted.
 */
import { type CheckTarget, send } from "../wire/CheckTarget.ts";
import { fail, type Finding, pass, warn } from "../wire/Finding.ts";
import { closeSession, initialize } from "../wire/requests.ts";

const PROBE = "cors";
/** The headers an MCP client sends (transports spec). `*` does not cover Authorization (Fetch standard). */
const MCP_HEADERS = ["authorization", "content-type", "mcp-protocol-version", "mcp-method", "mcp-name", "mcp-session-id", "last-event-id"];

export async function corsProbe(target: CheckTarget): Promise<Finding[]> {
  const origin = target.origin;
  const preflight = await send(target, target.url, {
    method: "OPTIONS",
    anonymous: true,
    headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": MCP_HEADERS.join(",") },
  });
  await preflight.body?.cancel();
  const granted = allowsOrigin(preflight.headers, origin);
  const post = await initialize(target, { origin });
  await closeSession(target, post.headers.get("mcp-session-id"));
  const postAllowed = post.status < 400 || post.status === 401;

  if (!granted) {
    if (postAllowed && allowsOrigin(post.headers, origin)) return [fail(PROBE, `the POST from ${origin} is served, but the preflight (HTTP ${preflight.status}) does not grant it`, "Browsers send the preflight first and stop there.")];
    return [warn(PROBE, `browser pages on ${origin} are refused (preflight HTTP ${preflight.status}, POST HTTP ${post.status})`, "Browser-based clients on that origin cannot connect; list the origins you trust (ALLOWED_ORIGINS here) if they should. Pass --origin to check another.")];
  }
  const problems: string[] = [];
  const allowed = (preflight.headers.get("access-control-allow-headers") ?? "").toLowerCase().split(",").map((h) => h.trim());
  const missing = MCP_HEADERS.filter((h) => !allowed.includes(h) && !(allowed.includes("*") && h !== "authorization"));
  if (missing.length > 0) problems.push(`the preflight does not allow ${missing.join(", ")}`);
  const methods = (preflight.headers.get("access-control-allow-methods") ?? "").toUpperCase();
  if (!methods.includes("POST") && !methods.includes("*")) problems.push("the preflight does not allow POST");
  if (!postAllowed) problems.push(`the preflight grants ${origin}, then the POST is refused with HTTP ${post.status}`);
  else if (!allowsOrigin(post.headers, origin)) problems.push("the POST's answer has no Access-Control-Allow-Origin, so the browser hides it");
  else {
    const exposed = (post.headers.get("access-control-expose-headers") ?? "").toLowerCase();
    const needed = [post.headers.has("mcp-session-id") ? "mcp-session-id" : "", post.status === 401 ? "www-authenticate" : ""].filter(Boolean);
    const hidden = needed.filter((h) => !exposed.includes(h) && exposed.trim() !== "*");
    if (hidden.length > 0) problems.push(`the answer does not expose ${hidden.join(", ")} (Access-Control-Expose-Headers), so a browser client cannot read it`);
  }
  const opaque = await initialize(target, { origin: "null" });
  await closeSession(target, opaque.headers.get("mcp-session-id"));
  if (opaque.status < 400 && allowsOrigin(opaque.headers, "null")) problems.push("a request with Origin: null (a sandboxed page, a file) is served");
  if (problems.length > 0) return [fail(PROBE, problems.join("; "), "Browser-based clients see an opaque network error, or pages that should not reach the server can.")];
  return [pass(PROBE, `a browser page on ${origin} can connect: preflight and POST granted, MCP headers allowed and exposed`)];
}

function allowsOrigin(headers: Headers, origin: string): boolean {
  const allowed = headers.get("access-control-allow-origin");
  return allowed === origin || allowed === "*";
}
