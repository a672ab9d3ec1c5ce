/**
 * What a durable-mcp deployment says of itself: its `GET /` answers JSON with
 * `runtime: "durable-mcp"`, a `problem` when it cannot serve its definition, and `warnings` for
 * what it serves without (task tools with no task class bound, …). A host never reads this, but
 * it names the cause of what the other probes would only see fail. Any other server is skipped:
 * nothing else publishes it.
 */
import { type CheckTarget, send } from "../wire/CheckTarget.ts";
import { fail, type Finding, pass, skip, warn } from "../wire/Finding.ts";
import { readCapped } from "../wire/postRpc.ts";

const PROBE = "report";

interface Description {
  runtime?: unknown;
  server?: { name?: unknown; version?: unknown };
  problem?: unknown;
  warnings?: unknown;
}

export async function reportProbe(target: CheckTarget): Promise<Finding[]> {
  const url = new URL(target.url.pathname.replace(/\/mcp\/?$/, "/"), target.url.origin);
  const response = await send(target, url, { headers: { accept: "application/json" } });
  let described: Description | undefined;
  try {
    described = response.ok ? (JSON.parse(await readCapped(response)) as Description) : undefined;
  } catch {
    described = undefined;
  }
  if (!response.bodyUsed) await response.body?.cancel();
  if (described?.runtime !== "durable-mcp") return [skip(PROBE, `GET ${url.pathname} does not describe a durable-mcp deployment (HTTP ${response.status})`)];
  const name = `${String(described.server?.name)} ${String(described.server?.version)}`;
  if (typeof described.problem === "string") {
    return [fail(PROBE, `${name} reports that it cannot serve its definition: ${described.problem}`, "Every call fails until the definition or the deployment's variables are fixed.")];
  }
  const warnings = Array.isArray(described.warnings) ? described.warnings.map(String) : [];
  if (warnings.length > 0) return warnings.map((w) => warn(PROBE, `${name} reports: ${w}`, "It serves the rest; what the warning names is missing."));
  return [pass(PROBE, `${name} reports no problem and no warning (GET ${url.pathname})`)];
}
