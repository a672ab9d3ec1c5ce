/**
 * `durable-mcp check --sign-in` against an authorization server that lets one grant serve both
 * resources (RFC 8707 §2.2: a refresh naming another resource the grant covers), in front of the
 * JWT fixture (`test/fixtures/auth/`) on whichever runtime `startServer` starts: the check gets
 * `/sse`'s token from a refresh, with one consent, and every probe passes signed in. The OAuth
 * example, whose grants are bound to one resource and so take a second consent, is driven through
 * Chromium in test/browser/checkSignIn.test.ts.
 *
 * The authorization server here is the smallest that `auth()` of the official SDK completes a flow
 * with: metadata (RFC 8414), registration, an authorization endpoint that approves at once (the
 * consent page is not under test here), PKCE S256 checked, and access tokens signed by `jose`
 * (`testIssuer`) for the resource each token request names.
 */
import { createHash, randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCheck } from "../../check/runCheck.ts";
import { startServer } from "../../scripts/startServer.mjs";
import { type TestIssuer, testIssuer } from "../support/testIssuer.ts";

const ENTRY = "test/fixtures/auth/authWorker.ts";

interface Grant {
  clientId: string;
  redirectUri: string;
  challenge: string;
}

let as: Server;
let issuer: TestIssuer;
let server: Awaited<ReturnType<typeof startServer>>;
/** The `resource` of every token request, in order. */
const tokenResources: (string | null)[] = [];

beforeAll(async () => {
  as = createServer();
  await new Promise<void>((resolve) => as.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(as.address() as { port: number }).port}`;
  issuer = await testIssuer(origin);
  serveAuthorization(as, origin);
  server = await startServer({ entry: ENTRY, vars: { LOG_LEVEL: "error", JWT_ISSUER: origin, JWT_KEYS: issuer.jwks } });
});
afterAll(async () => {
  await server?.dispose();
  await new Promise((resolve) => as?.close(resolve));
});

/** Codes and refresh tokens, by value: grants that cover every resource. */
function serveAuthorization(http: Server, origin: string): void {
  const codes = new Map<string, Grant>();
  const refreshTokens = new Set<string>();
  const json = (response: import("node:http").ServerResponse, status: number, body: unknown) => response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  http.on("request", async (request, response) => {
    const url = new URL(request.url!, origin);
    let body = "";
    for await (const chunk of request) body += chunk;
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      return json(response, 200, {
        issuer: origin,
        authorization_endpoint: `${origin}/authorize`,
        token_endpoint: `${origin}/token`,
        registration_endpoint: `${origin}/register`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
        authorization_response_iss_parameter_supported: true,
      });
    }
    if (url.pathname === "/register") return json(response, 201, { ...JSON.parse(body), client_id: randomUUID() });
    if (url.pathname === "/authorize") {
      const code = randomUUID();
      const redirectUri = url.searchParams.get("redirect_uri")!;
      codes.set(code, { clientId: url.searchParams.get("client_id")!, redirectUri, challenge: url.searchParams.get("code_challenge")! });
      const back = new URL(redirectUri);
      back.search = new URLSearchParams({ code, state: url.searchParams.get("state")!, iss: origin }).toString();
      return response.writeHead(302, { location: back.href }).end();
    }
    if (url.pathname === "/token") {
      const form = new URLSearchParams(body);
      const resource = form.get("resource");
      tokenResources.push(resource);
      if (form.get("grant_type") === "authorization_code") {
        const grant = codes.get(form.get("code")!);
        codes.delete(form.get("code")!);
        const verifier = form.get("code_verifier") ?? "";
        if (!grant || grant.clientId !== form.get("client_id") || grant.redirectUri !== form.get("redirect_uri") || createHash("sha256").update(verifier).digest("base64url") !== grant.challenge) return json(response, 400, { error: "invalid_grant" });
      } else if (form.get("grant_type") !== "refresh_token" || !refreshTokens.delete(form.get("refresh_token")!)) return json(response, 400, { error: "invalid_grant" });
      const refreshToken = randomUUID();
      refreshTokens.add(refreshToken);
      const accessToken = await issuer.sign({ sub: "alice", aud: resource! });
      return json(response, 200, { access_token: accessToken, token_type: "Bearer", expires_in: 300, refresh_token: refreshToken, scope: "mcp" });
    }
    json(response, 404, { error: "not_found" });
  });
}

describe("durable-mcp check --sign-in, where one grant serves both resources", () => {
  it("gets /sse's token from a refresh naming it, with one consent, and passes every probe signed in", async () => {
    const said: string[] = [];
    const approvals: Promise<unknown>[] = [];
    const findings = await runCheck({
      url: `${server.url}/mcp`,
      signIn: {
        openBrowser: false,
        say: (line) => {
          said.push(line);
          // The browser: open the printed URL and follow the authorization server back to the listener.
          const printed = /^ {2}(http\S+)$/m.exec(line)![1]!;
          approvals.push(fetch(printed).then((page) => page.text()));
        },
      },
    });
    expect(await Promise.all(approvals)).toEqual([expect.stringContaining("Signed in.")]);
    expect(said).toHaveLength(1);
    expect(findings.map((f) => `${f.verdict} ${f.probe}`), JSON.stringify(findings, null, 1)).toEqual([
      "pass oauth",
      "pass sign-in",
      "pass sign-in",
      "pass report",
      "pass discover",
      "pass per-call",
      "pass sdk",
      "pass sdk",
      "pass sse",
      "pass cors",
    ]);
    expect(findings.filter((f) => f.probe === "sign-in").map((f) => f.summary)).toEqual([
      "/mcp: authorization code with PKCE S256, a client registered on the spot, one consent in the browser",
      "/sse, a protected resource of its own: its token from a refresh of the first grant naming it (RFC 8707), no second consent",
    ]);
    expect(tokenResources).toEqual([`${server.url}/mcp`, `${server.url}/sse`]);
  });
});
