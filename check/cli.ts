#!/usr/bin/env node
/**
 * The `durable-mcp` command (the package's `bin`). One subcommand today:
 *
 *   npx durable-mcp check <url> [--token T] [--sse-token T] [--header "Name: value"]... [--sse URL]
 *                               [--origin O] [--timeout MS] [--skip probe,...] [--json]
 *
 * It runs against any MCP URL what hosts run before they accept a server (runCheck.ts) and exits
 * 0 when nothing failed, 1 when something did, 2 when the command line itself is wrong.
 */
import { parseArgs } from "node:util";
import { formatJson, formatReport } from "./formatReport.ts";
import { DEFAULT_ORIGIN, DEFAULT_TIMEOUT_MS, PROBES, type ProbeName, runCheck } from "./runCheck.ts";

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

Exit code: 0 when nothing failed, 1 when something did, 2 for a wrong command line.`;

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
  return { url, headers, sseToken, timeoutMs, skip: skip as ProbeName[], sseUrl: values.sse, origin: values.origin, json: values.json ?? false };
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
