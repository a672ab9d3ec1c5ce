/**
 * `durable-mcp check`'s engine: the probes real hosts run before they accept a server, in the
 * order a host meets them (sign-in first, since without it nothing else answers), each turned
 * into findings. A probe that throws (the server went away, a deadline passed, a redirect to
 * another origin) is a failure that names the error, never a crash, and the others still run.
 * With `signIn`, the check signs in right after the oauth probe, as a host would, and the probes
 * after it run with the tokens it got (`/sse` with its own).
 *
 * @example
 * const findings = await runCheck({ url: "http://127.0.0.1:8787/mcp" });
 * const ok = !findings.some((f) => f.verdict === "fail");
 * await runCheck({ url: "https://mcp.example.com/mcp", signIn: { openBrowser: false } }); // behind OAuth
 */
import { besideMcp, type CheckTarget } from "./wire/CheckTarget.ts";
import { CrossOriginRedirect } from "./wire/CrossOriginRedirect.ts";
import { fail, type Finding, skip } from "./wire/Finding.ts";
import { corsProbe } from "./probes/corsProbe.ts";
import { discoverProbe } from "./probes/discoverProbe.ts";
import { oauthProbe } from "./probes/oauthProbe.ts";
import { perCallProbe } from "./probes/perCallProbe.ts";
import { reportProbe } from "./probes/reportProbe.ts";
import { sdkProbe, sseProbe } from "./probes/sdkProbe.ts";
import { signIn, type SignInOptions } from "./signIn/signIn.ts";

/** Every probe, by the name `--skip` takes, in the order they run. */
export const PROBES = ["oauth", "report", "discover", "per-call", "sdk", "sse", "cors"] as const;
export type ProbeName = (typeof PROBES)[number];

/** Each request's deadline unless told otherwise: past Claude Code's 60 s a host has given up anyway. */
export const DEFAULT_TIMEOUT_MS = 15_000;
/** The MCP Inspector's origin: the browser client people meet first. */
export const DEFAULT_ORIGIN = "http://localhost:6274";

export interface CheckOptions {
  url: string | URL;
  /** Default: `/sse` beside the MCP URL. */
  sseUrl?: string | URL;
  headers?: Record<string, string>;
  /** A bearer token for the HTTP+SSE endpoint, which behind sign-in needs its own (`--sse-token`). Default: `headers` as they are. */
  sseToken?: string;
  origin?: string;
  timeoutMs?: number;
  skip?: readonly ProbeName[];
  /**
   * Sign in before the probes that need answers, as a host does (`--sign-in`): the authorization
   * code flow in the user's browser, for the MCP URL and for `/sse`. Only when the server answers
   * an anonymous request with 401; not with `headers` that already carry an Authorization.
   */
  signIn?: SignInOptions;
}

/** Probes that need the server to answer: skipped when it wants sign-in and no token was given. */
const NEED_ANSWERS: readonly ProbeName[] = ["report", "discover", "per-call", "sdk", "sse"];

export async function runCheck(options: CheckOptions): Promise<Finding[]> {
  const url = new URL(options.url);
  const target: CheckTarget = {
    url,
    sseUrl: options.sseUrl ? new URL(options.sseUrl) : besideMcp(url, "sse"),
    headers: options.headers ?? {},
    ...(options.sseToken ? { sseToken: options.sseToken } : {}),
    origin: options.origin ?? DEFAULT_ORIGIN,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  };
  const skipped = new Set(options.skip ?? []);
  const findings: Finding[] = [];
  let signedOut = false;
  let signInFailed = false;
  for (const probe of PROBES) {
    if (skipped.has(probe)) {
      findings.push(skip(probe, "skipped (--skip)"));
      continue;
    }
    if (signedOut && NEED_ANSWERS.includes(probe) && !(probe === "sse" && target.sseToken)) {
      findings.push(skip(probe, signInFailed ? "needs sign-in, which failed (above)" : "needs sign-in: pass --sign-in, or a token with --token (or --header), to run it"));
      continue;
    }
    try {
      if (probe === "oauth") {
        const outcome = await oauthProbe(target);
        signedOut = outcome.signedOut;
        findings.push(...outcome.findings);
        if (options.signIn && signedOut) {
          const signedIn = await signIn(target, options.signIn);
          findings.push(...signedIn.findings);
          if (signedIn.token) target.headers = { ...target.headers, authorization: `Bearer ${signedIn.token}` };
          if (signedIn.sseToken) target.sseToken = signedIn.sseToken;
          signedOut = signedIn.token === undefined;
          signInFailed = signedOut;
        } else if (options.signIn) {
          const carried = Object.keys(target.headers).some((name) => name.toLowerCase() === "authorization");
          findings.push(skip("sign-in", carried ? "not run: the headers carry an Authorization already" : "not needed: the server asked for no sign-in"));
        }
      } else findings.push(...(await RUN[probe](target)));
    } catch (error) {
      if (error instanceof CrossOriginRedirect) findings.push(fail(probe, error.message, CrossOriginRedirect.WHY));
      else findings.push(fail(probe, `the probe could not finish: ${describeError(error)}`, `Is the server running at ${url}?`));
    }
  }
  return findings;
}

const RUN: Record<Exclude<ProbeName, "oauth">, (target: CheckTarget) => Promise<Finding[]>> = {
  report: reportProbe,
  discover: discoverProbe,
  "per-call": perCallProbe,
  sdk: sdkProbe,
  sse: sseProbe,
  cors: corsProbe,
};

/** fetch's "fetch failed" hides the reason in `cause` (ECONNREFUSED, a timeout): name both. */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return `${error.message}${cause}`;
}
