/**
 * The access token of a request, read the ways MCP allows (2025-11-25 authorization, "Token
 * Requirements"): `Authorization: Bearer <token>`, on every request — or `Authorization: DPoP
 * <token>` for a token bound to a key, with its proof in the `DPoP` header (RFC 9449 §7.1). A
 * token in the query string (`access_token`, RFC 6750 §2.3) is refused outright — URLs end up in
 * logs and histories — and so is a header that is not a well-formed credential of either scheme.
 *
 * Returns the token and its scheme, `undefined` when the request carries none (the caller answers
 * 401 with a challenge and no error code), or a refusal: 400 `invalid_request` (RFC 6750 §3.1).
 *
 * Not here: whether the token is any good (the verifier), the proof (`DpopGuard`).
 */
import { type Checked, passed, refused } from "../../shared/errors/Checked.ts";
import { ErrorCode } from "../../shared/errors/errorCodes.ts";
import { McpError } from "../../shared/errors/McpError.ts";

/**
 * RFC 6750 §2.1 b64token plus `:`, bounded: longer than any real access token, short enough to
 * log nothing big. The colon is outside b64token, but `@cloudflare/workers-oauth-provider` — the
 * authorization server most Workers MCP servers use — issues `user:grant:secret` tokens, so a
 * strict reading would refuse every one of them. RFC 9449 §7.1 gives the DPoP scheme the same
 * token68 syntax.
 */
const CREDENTIAL = /^(Bearer|DPoP) +([A-Za-z0-9\-._~+/:]{1,8192}=*) *$/i;

/** A token and the scheme it came under: `dpop` only for `Authorization: DPoP`. */
export interface AccessCredential {
  scheme: "bearer" | "dpop";
  token: string;
}

export function readBearerToken(request: Request): Checked<AccessCredential | undefined> {
  if (new URL(request.url).searchParams.has("access_token")) {
    return refused(invalidRequest("Access tokens are accepted only in the Authorization header, never in the URL"));
  }
  const header = request.headers.get("authorization");
  if (header === null) return passed(undefined);
  const match = CREDENTIAL.exec(header);
  if (!match) return refused(invalidRequest('The Authorization header must be "Bearer <access token>" or "DPoP <access token>"'));
  return passed({ scheme: match[1]!.toLowerCase() === "dpop" ? "dpop" : "bearer", token: match[2]! });
}

function invalidRequest(message: string): McpError {
  return new McpError(400, ErrorCode.InvalidRequest, message);
}
