/**
 * The check's `OAuthClientProvider` for the SDK's `auth()`: one per protected resource, all in
 * memory (tokens are never written anywhere, nor printed). It registers as a public native
 * client (`token_endpoint_auth_method: none`, a loopback redirect URI, authorization code and
 * refresh token), or uses the client id it was given; makes each `state` from 32 random bytes;
 * and hands the authorization URL to `show` (listen, print it, open the browser). The SDK does the rest:
 * discovery (RFC 9728, RFC 8414), registration (RFC 7591), PKCE S256, `resource` (RFC 8707), the
 * token request, and `iss` (RFC 9207) when the code is redeemed.
 */
import type { OAuthClientMetadata, OAuthClientProvider, OAuthDiscoveryState, StoredOAuthClientInformation, StoredOAuthTokens } from "@modelcontextprotocol/client";

/** How many random bytes make one `state` (RFC 6749 §10.10: not guessable). */
const STATE_BYTES = 32;
const CLIENT_NAME = "durable-mcp check";

export interface CheckOAuthProviderOptions {
  /** The loopback redirect URI the listener serves. */
  redirectUrl: string;
  /** A client registered beforehand (`--client-id`); default: dynamic registration. */
  clientId?: string;
}

export class CheckOAuthProvider implements OAuthClientProvider {
  /** The client as registered or given, shared by the providers of one sign-in. */
  client: StoredOAuthClientInformation | undefined;
  /** The `state` of the last authorization URL, for the listener to compare. */
  lastState: string | undefined;
  /** True once this provider sent the user to a consent page. */
  consented = false;
  /** What sending the user to `authorizationUrl` means here: set by the sign-in (listen, print, open). */
  show: (authorizationUrl: URL) => void | Promise<void> = () => undefined;
  private storedTokens: StoredOAuthTokens | undefined;
  private verifier: string | undefined;
  private discovery: OAuthDiscoveryState | undefined;

  constructor(private readonly options: CheckOAuthProviderOptions) {
    if (options.clientId) this.client = { client_id: options.clientId };
  }

  get redirectUrl(): string {
    return this.options.redirectUrl;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: CLIENT_NAME, redirect_uris: [this.options.redirectUrl], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
  }
  state(): string {
    this.lastState = Buffer.from(crypto.getRandomValues(new Uint8Array(STATE_BYTES))).toString("base64url");
    return this.lastState;
  }
  clientInformation(): StoredOAuthClientInformation | undefined {
    return this.client;
  }
  saveClientInformation(client: StoredOAuthClientInformation): void {
    this.client = client;
  }
  tokens(): StoredOAuthTokens | undefined {
    return this.storedTokens;
  }
  saveTokens(tokens: StoredOAuthTokens): void {
    this.storedTokens = tokens;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error("CheckOAuthProvider: the SDK asked for a PKCE verifier before starting an authorization");
    return this.verifier;
  }
  // The SDK compares the issuer recorded here at redirect time with the one that redeems the code.
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }
  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "all" || scope === "client") this.client = this.options.clientId ? { client_id: this.options.clientId } : undefined;
    if (scope === "all" || scope === "tokens") this.storedTokens = undefined;
    if (scope === "all" || scope === "verifier") this.verifier = undefined;
    if (scope === "all" || scope === "discovery") this.discovery = undefined;
  }
  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    this.consented = true;
    await this.show(authorizationUrl);
  }
}
