/**
 * The loopback redirect of `check --sign-in` (check/signIn/LoopbackRedirect.ts) over real HTTP on
 * 127.0.0.1: it takes one callback per wait and only with the `state` sent; an `error` answer, a
 * missing code, a wrong `state`, the deadline and `close` each end the wait with the sentence
 * that says why; what arrives outside a wait, on another path or with another method counts for
 * nothing; a taken port is named. And the opener refuses any URL that is not http(s).
 */
import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { CheckOAuthProvider } from "../../../check/signIn/CheckOAuthProvider.ts";
import { LoopbackRedirect } from "../../../check/signIn/LoopbackRedirect.ts";
import { openInBrowser } from "../../../check/signIn/openInBrowser.ts";
import { SignInError } from "../../../check/signIn/SignInError.ts";

let redirect: LoopbackRedirect | undefined;
afterEach(async () => {
  await redirect?.close();
  redirect = undefined;
});

const visit = async (url: string, init?: RequestInit) => {
  const response = await fetch(url, init);
  return { status: response.status, text: await response.text() };
};

describe("LoopbackRedirect", () => {
  it("listens on 127.0.0.1 at /callback and takes the one callback with the state sent", async () => {
    redirect = await LoopbackRedirect.open();
    expect(redirect.redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    // Before anyone waits: refused, and not kept for later.
    expect(await visit(`${redirect.redirectUrl}?code=early&state=s1`)).toMatchObject({ status: 400, text: expect.stringContaining("No sign-in is waiting") });
    const waiting = redirect.callback("s1", 60_000);
    expect((await visit(`${new URL(redirect.redirectUrl).origin}/favicon.ico`)).status).toBe(404);
    expect((await visit(redirect.redirectUrl, { method: "POST", body: "code=x&state=s1" })).status).toBe(404);
    expect(await visit(`${redirect.redirectUrl}?code=abc&state=s1&iss=https%3A%2F%2Fas.example`)).toMatchObject({ status: 200, text: expect.stringContaining("Signed in.") });
    const params = await waiting;
    expect(Object.fromEntries(params)).toEqual({ code: "abc", state: "s1", iss: "https://as.example" });
    // One code per wait: a second answer is refused.
    expect((await visit(`${redirect.redirectUrl}?code=again&state=s1`)).status).toBe(400);
  });

  it.each([
    ["a state it did not send", "?code=abc&state=other", "the redirect carried a state this sign-in did not send"],
    ["no state at all", "?code=abc", "the redirect carried a state this sign-in did not send"],
    ["the authorization server's error", "?error=access_denied&error_description=User%20said%20no&state=s1", "the authorization server answered access_denied: User said no"],
    ["neither code nor error", "?state=s1", "the redirect carried neither a code nor an error"],
  ])("ends the wait on %s, and tells the browser", async (_name, query, sentence) => {
    redirect = await LoopbackRedirect.open();
    const waiting = redirect.callback("s1", 60_000);
    const outcome = waiting.catch((error: unknown) => error);
    const page = await visit(`${redirect.redirectUrl}${query}`);
    expect(page.status).toBe(400);
    expect(page.text).toContain(`Sign-in failed: ${sentence}`);
    const error = await outcome;
    expect(error).toBeInstanceOf(SignInError);
    expect((error as SignInError).message).toBe(sentence);
  });

  it("escapes what the callback carries in the page it answers", async () => {
    redirect = await LoopbackRedirect.open();
    const outcome = redirect.callback("s1", 60_000).catch(() => undefined);
    const page = await visit(`${redirect.redirectUrl}?state=s1&error=${encodeURIComponent("<script>x</script>")}`);
    await outcome;
    expect(page.text).not.toContain("<script>");
    expect(page.text).toContain("&#60;script&#62;");
  });

  it("ends the wait at its deadline, naming it", async () => {
    redirect = await LoopbackRedirect.open();
    await expect(redirect.callback("s1", 50)).rejects.toThrow(`no answer reached ${redirect.redirectUrl} within 0.05 s`);
  });

  it("close ends a wait under way and stops listening", async () => {
    redirect = await LoopbackRedirect.open();
    const url = redirect.redirectUrl;
    const waiting = redirect.callback("s1", 60_000);
    await redirect.close();
    redirect = undefined;
    await expect(waiting).rejects.toThrow("the sign-in was stopped");
    await expect(fetch(url)).rejects.toThrow();
  });

  it("names a port that is taken, and what to do", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const error = await LoopbackRedirect.open(port).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SignInError);
      expect((error as SignInError).message).toBe(`cannot listen for the redirect on 127.0.0.1:${port} (EADDRINUSE)`);
      expect((error as SignInError).why).toContain("--redirect-port");
    } finally {
      taken.close();
    }
  });
});

describe("the sign-in's client and opener", () => {
  it("registers as a public native client on the loopback redirect, with a fresh unguessable state each time", () => {
    const provider = new CheckOAuthProvider({ redirectUrl: "http://127.0.0.1:1234/callback" });
    expect(provider.clientMetadata).toMatchObject({ redirect_uris: ["http://127.0.0.1:1234/callback"], token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"] });
    expect(provider.clientInformation()).toBeUndefined();
    const states = new Set(Array.from({ length: 8 }, () => provider.state()));
    expect(states.size).toBe(8);
    for (const state of states) expect(state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // A given client id survives the SDK invalidating the client: it is not replaced by a registration.
    const given = new CheckOAuthProvider({ redirectUrl: "http://127.0.0.1:1234/callback", clientId: "pre" });
    given.invalidateCredentials("all");
    expect(given.clientInformation()).toEqual({ client_id: "pre" });
  });

  it("opens nothing but http(s): the URL comes from the server under check", async () => {
    expect(await openInBrowser(new URL("file:///etc/passwd"))).toBe(false);
    expect(await openInBrowser(new URL("javascript:alert(1)"))).toBe(false);
  });
});
