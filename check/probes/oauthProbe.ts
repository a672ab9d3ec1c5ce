/**
 * The sign-in chain a host walks before it shows a consent screen (2026-07-28 authorization,
 * "Authorization Server Discovery"): an anonymous request gets 401 with `WWW-Authenticate:
 * Bearer resource_metadata="<absolute URL>"` (or a `DPoP` challenge, from a server that takes DPoP-bound tokens only); that document (RFC 9728), also at its well-known
 * addresses, names this server as its `resource` and at least one authorization server; that
 * server's metadata (RFC 8414 or OpenID discovery, tried in the spec's order) echoes its issuer,
 * offers the authorization code flow with PKCE S256, and a way for a client it has never seen to
 * register: a client ID metadata document, or dynamic registration.
 *
 * A server that answers the anonymous request asks for no sign-in: the probe says so and passes.
 * It reports whether the other probes can run (`signedOut`: 401 and no credentials given).
 */
import type { CheckTarget } from "../wire/CheckTarget.ts";
import { CrossOriginRedirect } from "../wire/CrossOriginRedirect.ts";
import { fail, type Finding, pass, skip, warn } from "../wire/Finding.ts";
import { getJson, type Json } from "../wire/getJson.ts";
import { initialize } from "../wire/requests.ts";

const PROBE = "oauth";

export interface OAuthOutcome {
  findings: Finding[];
  /** The server wants sign-in and the check has no credentials: the probes that need an answer cannot run. */
  signedOut: boolean;
}

export async function oauthProbe(target: CheckTarget): Promise<OAuthOutcome> {
  const answer = await initialize(target, { anonymous: true });
  if (answer.status !== 401) {
    const summary = answer.status === 403 ? "an anonymous initialize got 403, not 401" : `no sign-in: an anonymous initialize got HTTP ${answer.status}`;
    return { findings: [answer.status === 403 ? fail(PROBE, summary, "A host starts sign-in only on 401 with WWW-Authenticate; a 403 ends the connection.") : skip(PROBE, summary)], signedOut: false };
  }
  const signedOut = !Object.keys(target.headers).some((name) => name.toLowerCase() === "authorization");
  const findings = await chain(target, answer.headers.get("www-authenticate"));
  return { findings, signedOut };
}

async function chain(target: CheckTarget, challenge: string | null): Promise<Finding[]> {
  const findings: Finding[] = [];
  if (!challenge || !/^\s*(bearer|dpop)\b/i.test(challenge)) return [fail(PROBE, `401 without a Bearer or DPoP challenge (WWW-Authenticate: ${challenge ?? "absent"})`, "Hosts read WWW-Authenticate to start sign-in; a proxy that renames or drops it breaks every connector.")];
  const pointer = /resource_metadata="([^"]*)"/i.exec(challenge)?.[1];
  const pathInserted = new URL(`/.well-known/oauth-protected-resource${target.url.pathname.replace(/\/$/, "")}`, target.url);
  const root = new URL("/.well-known/oauth-protected-resource", target.url);
  let metadataUrl: URL;
  if (pointer === undefined) {
    findings.push(warn(PROBE, "the 401 names no resource_metadata", "Clients then guess the well-known addresses; claude.ai and ChatGPT follow resource_metadata first."));
    metadataUrl = pathInserted;
  } else if (!/^https?:\/\//i.test(pointer)) {
    return [fail(PROBE, `resource_metadata is not an absolute URL: ${JSON.stringify(pointer)}`, "claude.ai's connector fails silently on a relative resource_metadata (RFC 9728 §5.1 requires a URL).")];
  } else metadataUrl = new URL(pointer);

  const metadata = (await documentAt(target, metadataUrl)) ?? (pointer === undefined ? await documentAt(target, root) : undefined);
  if (!metadata) return [...findings, fail(PROBE, `no protected-resource metadata at ${metadataUrl}${pointer === undefined ? ` or ${root}` : ""}`, "Without it no host can find where to sign in.")];
  if (pointer !== undefined && !(await documentAt(target, pathInserted))) {
    findings.push(warn(PROBE, `no metadata at the well-known address ${pathInserted}`, "Clients that lose the header (a proxy renaming WWW-Authenticate) probe it first."));
  }
  if (!sameResource(metadata.resource, target.url)) {
    return [...findings, fail(PROBE, `the metadata's resource is ${JSON.stringify(metadata.resource)}, not ${target.url}`, "Hosts require resource to be the URL the user typed (RFC 9728 §3.3) and refuse the server otherwise.")];
  }
  const servers = Array.isArray(metadata.authorization_servers) ? metadata.authorization_servers.filter((s): s is string => typeof s === "string") : [];
  if (servers.length === 0) return [...findings, fail(PROBE, "the metadata names no authorization_servers", "A host cannot sign in without one.")];

  const issuer = servers[0]!;
  const found = await authorizationServerMetadata(target, issuer);
  if (!found) return [...findings, fail(PROBE, `no authorization server metadata for ${issuer} at any well-known address`, "Hosts try RFC 8414 and OpenID discovery, in the spec's order; none answered.")];
  const { document, url } = found;
  const problems: string[] = [];
  if (document.issuer !== issuer) problems.push(`its issuer is ${JSON.stringify(document.issuer)}, not ${issuer} (RFC 8414 §3.3: the client must not use it)`);
  for (const field of ["authorization_endpoint", "token_endpoint"]) if (typeof document[field] !== "string") problems.push(`it has no ${field}`);
  const methods = Array.isArray(document.code_challenge_methods_supported) ? document.code_challenge_methods_supported : [];
  if (!methods.includes("S256")) problems.push("code_challenge_methods_supported does not list S256 (MCP clients must refuse a server without PKCE S256)");
  const cimd = document.client_id_metadata_document_supported === true;
  const registration = typeof document.registration_endpoint === "string";
  if (!cimd && !registration) problems.push("it offers neither client ID metadata documents nor dynamic registration, so ChatGPT and Claude cannot register");
  if (problems.length > 0) return [...findings, fail(PROBE, `authorization server metadata (${url}): ${problems.join("; ")}`, "Hosts stop before the consent screen.")];
  const auth = Array.isArray(document.token_endpoint_auth_methods_supported) ? document.token_endpoint_auth_methods_supported : undefined;
  if (cimd && auth && !auth.includes("none")) findings.push(warn(PROBE, "token_endpoint_auth_methods_supported does not list none", "ChatGPT's client metadata document lists none; servers that refuse it break the install."));
  const ways = [cimd ? "client ID metadata documents" : "", registration ? "dynamic registration" : ""].filter(Boolean).join(" and ");
  findings.unshift(pass(PROBE, `401 → ${metadataUrl} → ${url}: PKCE S256, ${ways}`));
  return findings;
}

/** RFC 8414 with path insertion, then OpenID discovery inserted, then appended (2026-07-28 authorization, the same order). */
async function authorizationServerMetadata(target: CheckTarget, issuer: string): Promise<{ document: Json; url: URL } | undefined> {
  let base: URL;
  try {
    base = new URL(issuer);
  } catch {
    return undefined;
  }
  const path = base.pathname.replace(/\/$/, "");
  const candidates = [`/.well-known/oauth-authorization-server${path}`, `/.well-known/openid-configuration${path}`];
  if (path) candidates.push(`${path}/.well-known/openid-configuration`);
  for (const candidate of candidates) {
    const url = new URL(candidate, base.origin);
    const document = await documentAt(target, url);
    if (document) return { document, url };
  }
  return undefined;
}

/** A metadata document as a client that has not signed in fetches it; an unreachable host has none. A redirect to another origin is the probe's finding. */
function documentAt(target: CheckTarget, url: URL): Promise<Json | undefined> {
  return getJson(target, url, true).then(({ body }) => body, (error) => {
    if (error instanceof CrossOriginRedirect) throw error;
    return undefined;
  });
}

/** RFC 9728's `resource` against the URL the user typed, ignoring a trailing slash. */
function sameResource(resource: unknown, url: URL): boolean {
  if (typeof resource !== "string") return false;
  const strip = (value: string) => value.replace(/\/$/, "");
  return strip(resource) === strip(url.href);
}
