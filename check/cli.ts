#!/usr/bin/env node
/**
 * The `durable-mcp` command (the package's `bin`). One subcommand today:
 *
 *   npx durable-mcp check <url> [--token T] [--sse-token T] [--header "Name: value"]... [--sse URL]
 *                               [--origin O] [--timeout MS] [--skip probe,...] [--json]
 *                               [--sign-in [--client-id ID] [--redirect-port P] [--no-browser] [--sign-in-timeout MS]]
 *
 * It runs against any MCP URL what hosts run before they accept a server (runCheck.ts) and exits
 * 0 when nothing failed, 1 when something did, 2 when the command line itself is wrong.
 */
import { parseArgs } from "node:util";
import { formatJson, formatReport } from "./formatReport.ts";
import { DEFAULT_ORIGIN, DEFAULT_TIMEOUT_MS, PROBES, type ProbeName, runCheck } from "./runCheck.ts";
import { DEFAULT_SIGN_IN_TIMEOUT_MS, MAX_SIGN_IN_TIMEOUT_MS, type SignInOptions } from "./signIn/signIn.ts";

const USAGE = `Usage: durable-mcp check <url> [options]

Runs against an MCP server what real hosts do before they accept it, and says what would fail and why.
It lists what the server offers and calls none of it: no tool is called, since a tool may act.

Options:
  --token <token>        a bearer token, for a server behind sign-in
  --sse-token <token>    a bearer token for the HTTP+SSE endpoint, which behind sign-in is a
                         resource of its own (default: --token); without one, a 401 there is a warning
  --header "Name: value" a header for every request (repeatable)
  --sse <url>            the HTTP+SSE endpoint (default: /sse beside the MCP URL)
  --origin <origin>      the browser origin of the CORS probe (default: ${DEFAULT_ORIGIN})
  --timeout <ms>         each request's deadline (default: ${DEFAULT_TIMEOUT_MS})
  --skip <probes>        comma-separated, of: ${PROBES.join(", ")}
  --json                 the findings as JSON

Sign-in, as a host does it (instead of --token and --sse-token):
  --sign-in              sign in with the authorization code flow and PKCE in your browser, then run
                         every probe signed in, /sse with a token of its own. Tokens stay in memory.
  --client-id <id>       a client registered beforehand (default: dynamic registration), with the
                         redirect URI http://127.0.0.1:<port>/callback
  --redirect-port <port> the loopback port the browser is sent back to (default: any free port;
                         name the registered one if your authorization server matches ports)
  --no-browser           do not open the browser; open the printed URL yourself
  --sign-in-timeout <ms> how long to wait for each consent (default: ${DEFAULT_SIGN_IN_TIMEOUT_MS}, at most ${MAX_SIGN_IN_TIMEOUT_MS})

Exit code: 0 when nothing failed, 1 when something did (a failed sign-in too), 2 for a wrong command line.`;

class UsageError extends Error {}

function isUrl(value: string): boolean {
  try {
    return Boolean(new URL(value));
  } catch {
    return false;
  }
}

function options(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      token: { type: "string" },
      "sse-token": { type: "string" },
      header: { type: "string", multiple: true },
      sse: { type: "string" },
      origin: { type: "string" },
      timeout: { type: "string" },
      skip: { type: "string" },
      json: { type: "boolean" },
      "sign-in": { type: "boolean" },
      "client-id": { type: "string" },
      "redirect-port": { type: "string" },
      "no-browser": { type: "boolean" },
      "sign-in-timeout": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return undefined;
  const [command, url, ...extra] = positionals;
  if (command !== "check") throw new UsageError(command ? `Unknown command ${JSON.stringify(command)}.` : "Name a command.");
  if (!url || extra.length > 0) throw new UsageError("check takes one URL.");
  if (!isUrl(url) || !/^https?:$/.test(new URL(url).protocol)) throw new UsageError(`${JSON.stringify(url)} is not an http(s) URL.`);
  const headers: Record<string, string> = {};
  for (const line of values.header ?? []) {
    const colon = line.indexOf(":");
    if (colon <= 0) throw new UsageError(`--header ${JSON.stringify(line)} is not "Name: value".`);
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  if (values.token) headers.authorization = `Bearer ${values.token}`;
  const timeoutMs = values.timeout === undefined ? undefined : Number(values.timeout);
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) throw new UsageError("--timeout takes a positive number of milliseconds.");
  const skip = (values.skip ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  const unknown = skip.filter((name) => !(PROBES as readonly string[]).includes(name));
  if (unknown.length > 0) throw new UsageError(`--skip: no probe named ${unknown.join(", ")}.`);
  if (values.sse !== undefined && !isUrl(values.sse)) throw new UsageError(`--sse ${JSON.stringify(values.sse)} is not a URL.`);
  if (values.origin !== undefined && !isUrl(values.origin)) throw new UsageError(`--origin ${JSON.stringify(values.origin)} is not an origin.`);
  const sseToken = values["sse-token"];
  const signIn = signInOptions(values, headers, skip);
  return { url, headers, sseToken, timeoutMs, skip: skip as ProbeName[], sseUrl: values.sse, origin: values.origin, json: values.json ?? false, ...(signIn ? { signIn } : {}) };
}

/** `--sign-in` and the options that only it takes; a sign-in option without it is a mistake worth a sentence. */
function signInOptions(values: Record<string, string | boolean | string[] | undefined>, headers: Record<string, string>, skip: string[]): SignInOptions | undefined {
  const only = ["client-id", "redirect-port", "no-browser", "sign-in-timeout"].filter((name) => values[name] !== undefined);
  if (!values["sign-in"]) {
    if (only.length > 0) throw new UsageError(`--${only[0]} goes with --sign-in.`);
    return undefined;
  }
  if (headers.authorization !== undefined || values["sse-token"] !== undefined) throw new UsageError("--sign-in gets its own tokens: leave out --token, --sse-token and an Authorization --header.");
  if (skip.includes("oauth")) throw new UsageError("--sign-in starts from the oauth probe's 401: do not skip oauth.");
  const port = values["redirect-port"] === undefined ? undefined : Number(values["redirect-port"]);
  if (port !== undefined && !(Number.isInteger(port) && port >= 1 && port <= 65_535)) throw new UsageError("--redirect-port takes a port number, 1 to 65535.");
  const clientId = values["client-id"] as string | undefined;
  if (clientId !== undefined && clientId.trim() === "") throw new UsageError("--client-id takes a client id.");
  const timeoutMs = values["sign-in-timeout"] === undefined ? undefined : Number(values["sign-in-timeout"]);
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0 && timeoutMs <= MAX_SIGN_IN_TIMEOUT_MS)) throw new UsageError(`--sign-in-timeout takes a positive number of milliseconds, at most ${MAX_SIGN_IN_TIMEOUT_MS}.`);
  return { ...(clientId ? { clientId } : {}), ...(port ? { redirectPort: port } : {}), openBrowser: !values["no-browser"], ...(timeoutMs ? { timeoutMs } : {}) };
}

async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof options>;
  try {
    parsed = options(argv);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}\n`);
    return 2;
  }
  if (!parsed) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const { json, ...check } = parsed;
  const findings = await runCheck(check);
  process.stdout.write(`${json ? formatJson(check.url, findings) : formatReport(check.url, findings)}\n`);
  return findings.some((finding) => finding.verdict === "fail") ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
