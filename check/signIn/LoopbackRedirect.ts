/**
 * The redirect URI of a sign-in: an HTTP listener on 127.0.0.1 (RFC 8252 §7.3: a loopback IP
 * literal, any port, path `/callback`) that takes the authorization server's answer from the
 * user's browser. `callback(state)` waits for the next request to `/callback`, answers the browser
 * a short page and settles with its parameters; it accepts one callback per wait, and only while
 * someone waits: a second one, or one that arrives early, gets 400 and changes nothing. A callback
 * whose `state` is not the one sent, or that carries `error`, ends the wait with a `SignInError`
 * (fail closed: a forged redirect must not be waited out). Other paths get 404 and count for nothing.
 *
 * Not here: `iss` (RFC 9207), which the SDK checks against the issuer it discovered when the code
 * is redeemed, and redeeming the code. The listener's owner closes it (`close`), once per sign-in.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { SignInError } from "./SignInError.ts";

/** The redirect URI's path (RFC 8252 §7.3 leaves it to the client). */
export const CALLBACK_PATH = "/callback";
const HOST = "127.0.0.1";
const PAGE_HEADERS = { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", connection: "close" };

interface Waiting {
  state: string;
  settle: (outcome: URLSearchParams | SignInError) => void;
}

export class LoopbackRedirect {
  private waiting: Waiting | undefined;

  private constructor(private readonly server: Server, readonly redirectUrl: string) {}

  /** Listens on 127.0.0.1:`port` (0: any free port). @throws SignInError when the port is taken */
  static async open(port = 0): Promise<LoopbackRedirect> {
    let redirect: LoopbackRedirect | undefined;
    const server = createServer((request, response) => redirect!.answer(request, response));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, HOST, () => resolve());
    }).catch((error: NodeJS.ErrnoException) => {
      throw new SignInError(`cannot listen for the redirect on ${HOST}:${port} (${error.code ?? error.message})`, "Choose another --redirect-port, or leave it out to take any free port.");
    });
    const bound = (server.address() as AddressInfo).port;
    redirect = new LoopbackRedirect(server, `http://${HOST}:${bound}${CALLBACK_PATH}`);
    return redirect;
  }

  /**
   * The parameters of the next callback that carries `state`, within `timeoutMs`.
   * @throws SignInError on a wrong `state`, an `error` answer, a missing code, or the deadline
   */
  callback(state: string, timeoutMs: number): Promise<URLSearchParams> {
    if (this.waiting) throw new Error("LoopbackRedirect.callback: a wait is already under way");
    return new Promise<URLSearchParams>((resolve, reject) => {
      const timer = setTimeout(() => settle(new SignInError(`no answer reached ${this.redirectUrl} within ${timeoutMs / 1000} s`, "Open the URL above and approve, or give more time with --sign-in-timeout.")), timeoutMs);
      const settle = (outcome: URLSearchParams | SignInError) => {
        clearTimeout(timer);
        this.waiting = undefined;
        if (outcome instanceof SignInError) reject(outcome);
        else resolve(outcome);
      };
      this.waiting = { state, settle };
    });
  }

  /** Stops listening and drops open connections; a wait under way ends with a SignInError. */
  async close(): Promise<void> {
    this.waiting?.settle(new SignInError("the sign-in was stopped"));
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private answer(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? "/", this.redirectUrl);
    if (url.pathname !== CALLBACK_PATH || request.method !== "GET") return page(response, 404, "Not found.");
    const waiting = this.waiting;
    if (!waiting) return page(response, 400, "No sign-in is waiting for this answer. Start again from durable-mcp check.");
    const params = url.searchParams;
    const outcome = judge(params, waiting.state);
    waiting.settle(outcome);
    if (outcome instanceof SignInError) page(response, 400, `Sign-in failed: ${outcome.message}. You can close this tab.`);
    else page(response, 200, "Signed in. You can close this tab and go back to durable-mcp check.");
  }
}

/** The callback's verdict: its parameters, or why they are refused (RFC 6749 §4.1.2, §4.1.2.1, §10.12). */
function judge(params: URLSearchParams, state: string): URLSearchParams | SignInError {
  if (params.get("state") !== state) return new SignInError("the redirect carried a state this sign-in did not send", "Another page or program sent your browser to the redirect URI (cross-site request forgery, RFC 6749 §10.12); nothing was redeemed. Run the check again.");
  const error = params.get("error");
  if (error !== null) {
    const description = params.get("error_description");
    return new SignInError(`the authorization server answered ${error}${description ? `: ${description}` : ""}`, error === "access_denied" ? "The consent was refused." : undefined);
  }
  if (!params.get("code")) return new SignInError("the redirect carried neither a code nor an error");
  return params;
}

function page(response: ServerResponse, status: number, text: string): void {
  const escaped = text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  response.writeHead(status, PAGE_HEADERS);
  response.end(`<!doctype html><meta charset="utf-8"><title>durable-mcp check</title><p>${escaped}</p>`);
}
