/**
 * What a durable-mcp deployment says of itself: its `GET /` answers JSON with
 * `runtime: "durable-mcp"`, a `problem` when it cannot serve its definition, and `warnings` for
 * what it serves without (task tools with no task class bound, …). A host never reads this, but
 * it names the cause of what the other probes would only see fail. Any other server is skipped:
 * nothing else publishes it.
 */
import { besideMcp, type CheckTarget } from "../wire/CheckTarget.ts";
import { fail, type Finding, pass, skip, warn } from "../wire/Finding.ts";
import { getJson } from "../wire/getJson.ts";

const PROBE = "report";

interface Description {
  runtime?: unknown;
  server?: { name?: unknown; version?: unknown };
  problem?: unknown;
  warnings?: unknown;
}

export async function reportProbe(target: CheckTarget): Promise<Finding[]> {
  const url = besideMcp(target.url, "");
  const { status, body } = await getJson(target, url);
  const described = body as Description | undefined;
  if (described?.runtime !== "durable-mcp") return [skip(PROBE, `GET ${url.pathname} does not describe a durable-mcp deployment (HTTP ${status})`)];
  const name = `${String(described.server?.name)} ${String(described.server?.version)}`;
  if (typeof described.problem === "string") {
    return [fail(PROBE, `${name} reports that it cannot serve its definition: ${described.problem}`, "Every call fails until the definition or the deployment's variables are fixed.")];
  }
  const warnings = Array.isArray(described.warnings) ? described.warnings.map(String) : [];
  if (warnings.length > 0) return warnings.map((w) => warn(PROBE, `${name} reports: ${w}`, "It serves the rest; what the warning names is missing."));
  return [pass(PROBE, `${name} reports no problem and no warning (GET ${url.pathname})`)];
}
