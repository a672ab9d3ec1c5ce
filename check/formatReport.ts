/**
 * The findings as printed: for a person in a terminal (`formatReport`), one line per finding, the
 * reason indented under anything short of a pass, a line that counts them, and one that says what
 * the check does not do (call tools); or as JSON (`formatJson`). No colour: the verdict is the
 * first word, so the report reads the same in a CI log. Every string goes through `printable`
 * (text) or is escaped by JSON, so nothing a server says can drive the terminal or break a line.
 */
import { cutAt, printable } from "./printable.ts";
import { counted, type Finding, type Verdict } from "./wire/Finding.ts";

/** What JSON.stringify leaves raw of what `printable` escapes: DEL, C1 controls, bidi controls. */
const RAW_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** The report's last line: what the check leaves alone, so a pass is not read as more than it is. */
export const NOT_CHECKED = "Not checked: calling tools. The check lists what the server offers and calls none of it, since a tool may act.";

const LABEL: Record<Verdict, string> = { pass: "PASS", warn: "WARN", fail: "FAIL", skip: "SKIP" };

export function formatReport(url: string, findings: readonly Finding[]): string {
  const width = Math.max(...findings.map((f) => f.probe.length), 4);
  const lines = [`durable-mcp check ${printable(url)}`, ""];
  for (const finding of findings) {
    lines.push(`${LABEL[finding.verdict]}  ${printable(finding.probe).padEnd(width)}  ${printable(finding.summary)}`);
    if (finding.why) lines.push(`${" ".repeat(width + 8)}why: ${printable(finding.why)}`);
  }
  const count = (verdict: Verdict) => findings.filter((f) => f.verdict === verdict).length;
  lines.push("", `${count("pass")} passed, ${count("fail")} failed, ${counted(count("warn"), "warning")}, ${count("skip")} skipped`, NOT_CHECKED);
  return lines.join("\n");
}

/**
 * `{ url, findings, notChecked }` as JSON. JSON.stringify escapes C0 controls; DEL, C1 controls
 * and bidi controls it leaves raw, so they are escaped here too (`\u009b`): the same document,
 * safe to print, with each string cut at `MAX_PRINTED_CHARS` as in the text.
 */
export function formatJson(url: string, findings: readonly Finding[]): string {
  const capped = (_key: string, value: unknown) => (typeof value === "string" && cutAt(value) !== value ? `${cutAt(value)}…` : value);
  const json = JSON.stringify({ url, findings, notChecked: NOT_CHECKED }, capped, 2);
  return json.replace(RAW_IN_JSON, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
