/**
 * The findings as a person reads them in a terminal: one line per finding, the reason indented
 * under anything short of a pass, and a last line that counts them. No colour: the verdict is
 * the first word, so the report reads the same in a CI log.
 */
import { type Finding, type Verdict } from "./wire/Finding.ts";

const LABEL: Record<Verdict, string> = { pass: "PASS", warn: "WARN", fail: "FAIL", skip: "SKIP" };

export function formatReport(url: string, findings: readonly Finding[]): string {
  const width = Math.max(...findings.map((f) => f.probe.length), 4);
  const lines = [`durable-mcp check ${url}`, ""];
  for (const finding of findings) {
    lines.push(`${LABEL[finding.verdict]}  ${finding.probe.padEnd(width)}  ${finding.summary}`);
    if (finding.why) lines.push(`${" ".repeat(width + 8)}why: ${finding.why}`);
  }
  const count = (verdict: Verdict) => findings.filter((f) => f.verdict === verdict).length;
  lines.push("", `${count("pass")} passed, ${count("fail")} failed, ${count("warn")} warnings, ${count("skip")} skipped`);
  return lines.join("\n");
}
