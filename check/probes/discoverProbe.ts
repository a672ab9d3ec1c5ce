/**
 * The 2026-07-28 probe, as Claude Code and ChatGPT send it before anything else: `server/discover`
 * (2026-07-28 server/discover). Then what ChatGPT's connector scanner compares, and refuses with a
 * 424 when it disagrees: the discover answer against what `initialize` says (identity, features,
 * extensions, instructions) and against what the server serves (each advertised list answers at
 * 2026-07-28, with the tools a 2025 session lists).
 *
 * A server without 2026-07-28 is a warning, not a failure: those hosts fall back to `initialize`.
 */
import { type CheckTarget } from "../wire/CheckTarget.ts";
import { fail, type Finding, pass, warn } from "../wire/Finding.ts";
import { closeSession, describeAnswer, initialize, legacyMessage, MODERN_VERSION, modernRequest } from "../wire/requests.ts";

const PROBE = "discover";
/** The features whose presence both eras must agree on (ServerCapabilities in both schemas). */
const FEATURES = ["tools", "prompts", "resources", "completions", "logging"] as const;
/** The lists a client may call once discover advertises their feature. */
const LISTS = { tools: "tools/list", prompts: "prompts/list", resources: "resources/list" } as const;
const SERVER_INFO = "io.modelcontextprotocol/serverInfo";

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

export async function discoverProbe(target: CheckTarget): Promise<Finding[]> {
  const answer = await modernRequest(target, "server/discover");
  if (answer.status >= 500) return [fail(PROBE, `server/discover: ${describeAnswer(answer)}`, "A server error where hosts probe first: Claude Code and ChatGPT give up on the server instead of falling back.")];
  const discovered = answer.message?.result;
  if (!discovered) {
    return [warn(PROBE, `no 2026-07-28: server/discover got ${describeAnswer(answer)}`, "Claude Code and ChatGPT probe server/discover first and fall back to initialize (2025-11-25): this server is used in the 2025 era only.")];
  }
  const findings: Finding[] = [];
  const problems = shapeProblems(discovered);
  if (problems.length > 0) return [fail(PROBE, `server/discover's answer is malformed: ${problems.join("; ")}`, "A host cannot choose a revision or show the server from it.")];
  const capabilities = discovered.capabilities as Json;

  const opened = await initialize(target);
  const initialized = opened.message?.result;
  if (!initialized || !isObject(initialized.capabilities)) {
    findings.push(warn(PROBE, `2026-07-28 only: initialize got ${describeAnswer(opened)}`, "2025 clients (VS Code, Codex, GitHub Copilot, Cursor) cannot connect."));
  } else {
    const differences = compare(discovered, initialized);
    if (differences.length > 0) {
      return [fail(PROBE, `server/discover disagrees with initialize: ${differences.join("; ")}`, "ChatGPT's connector scanner refuses a server whose discover answer is inconsistent with what it serves (a 424).")];
    }
  }

  const sessionId = opened.headers.get("mcp-session-id");
  const served = await servedLists(target, capabilities, sessionId, initialized !== undefined).finally(() => closeSession(target, sessionId));
  if (served.failures.length > 0) return [fail(PROBE, served.failures.join("; "), "A host that reads discover calls what it advertises; ChatGPT's scanner refuses the server when those calls fail (a 424).")];
  if (served.drift) findings.push(warn(PROBE, served.drift, "A host that connects in each era shows different tools; intended only for tools that exist in one era."));

  const features = FEATURES.filter((name) => name in capabilities);
  const extensions = Object.keys(isObject(capabilities.extensions) ? capabilities.extensions : {});
  const versions = (discovered.supportedVersions as string[]).join(", ");
  findings.unshift(pass(PROBE, `server/discover: ${versions}; ${features.join(", ") || "no features"}${extensions.length ? `; extensions ${extensions.join(", ")}` : ""}${initialized ? "; the same as initialize says" : ""}`));
  return findings;
}

/** What is wrong with a DiscoverResult's shape (2026-07-28 schema), if anything. */
function shapeProblems(result: Json): string[] {
  const problems: string[] = [];
  const versions = result.supportedVersions;
  if (!Array.isArray(versions) || versions.length === 0 || !versions.every((v) => typeof v === "string")) problems.push("supportedVersions is not a list of revisions");
  else if (!versions.includes(MODERN_VERSION)) problems.push(`it answered a ${MODERN_VERSION} request, yet supportedVersions (${versions.join(", ")}) does not list ${MODERN_VERSION}`);
  if (!isObject(result.capabilities)) problems.push("capabilities is missing");
  if (result.resultType !== undefined && result.resultType !== "complete") problems.push(`resultType is ${JSON.stringify(result.resultType)}, not "complete"`);
  return problems;
}

/** Where discover and initialize disagree: identity, features, extensions, instructions. */
function compare(discovered: Json, initialized: Json): string[] {
  const differences: string[] = [];
  const modern = discovered.capabilities as Json;
  const legacy = initialized.capabilities as Json;
  for (const feature of FEATURES) {
    if (feature in modern !== feature in legacy) differences.push(`${feature} is in ${feature in modern ? "discover's" : "initialize's"} capabilities only`);
  }
  const modernExtensions = isObject(modern.extensions) ? modern.extensions : {};
  const legacyExtensions = isObject(legacy.extensions) ? legacy.extensions : {};
  const missing = Object.keys(legacyExtensions).filter((id) => !(id in modernExtensions));
  if (missing.length > 0) differences.push(`extension ${missing.join(", ")} is offered by initialize, not by discover`);
  const info = isObject(discovered._meta) ? discovered._meta[SERVER_INFO] : undefined;
  const legacyInfo = isObject(initialized.serverInfo) ? initialized.serverInfo : {};
  if (isObject(info) && (info.name !== legacyInfo.name || info.version !== legacyInfo.version)) {
    differences.push(`serverInfo is ${JSON.stringify(`${info.name} ${info.version}`)} in discover, ${JSON.stringify(`${legacyInfo.name} ${legacyInfo.version}`)} in initialize`);
  }
  if ((discovered.instructions ?? "") !== (initialized.instructions ?? "")) differences.push("the instructions differ");
  return differences;
}

/**
 * Each list discover advertises, called at 2026-07-28; and the tool names compared with a 2025
 * session's (`sessionId`, when initialize opened one; `legacy` false when there is no 2025 era).
 */
async function servedLists(target: CheckTarget, capabilities: Json, sessionId: string | null, legacy: boolean): Promise<{ failures: string[]; drift?: string }> {
  const failures: string[] = [];
  let modernTools: string[] | undefined;
  for (const [feature, method] of Object.entries(LISTS)) {
    if (!(feature in capabilities)) continue;
    const answer = await modernRequest(target, method);
    const items = answer.message?.result?.[feature];
    if (!Array.isArray(items)) failures.push(`discover advertises ${feature}, but ${method} at ${MODERN_VERSION} got ${describeAnswer(answer)}`);
    else if (feature === "tools") modernTools = items.map((tool: Json) => String(tool.name)).sort();
  }
  if (!legacy || !modernTools) return { failures };
  await legacyMessage(target, "notifications/initialized", sessionId, true);
  const listed = (await legacyMessage(target, "tools/list", sessionId)).message?.result?.tools;
  if (!Array.isArray(listed)) return { failures };
  const legacyTools = listed.map((tool: Json) => String(tool.name)).sort();
  const onlyModern = modernTools.filter((name) => !legacyTools.includes(name));
  const onlyLegacy = legacyTools.filter((name) => !modernTools!.includes(name));
  if (onlyModern.length + onlyLegacy.length === 0) return { failures };
  const parts = [onlyModern.length ? `${onlyModern.join(", ")} at ${MODERN_VERSION} only` : "", onlyLegacy.length ? `${onlyLegacy.join(", ")} in the 2025 session only` : ""].filter(Boolean);
  return { failures, drift: `the tools differ by era: ${parts.join("; ")}` };
}
