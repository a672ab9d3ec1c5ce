/**
 * What one probe of `durable-mcp check` found: a verdict, a line that says what was seen, and for
 * anything short of a pass, why it matters to a real host (`why`). A failure is what would make a
 * host refuse or silently lose the server; a warning is what some host or user would notice.
 */
export type Verdict = "pass" | "warn" | "fail" | "skip";

export interface Finding {
  /** The probe's name, as `--skip` takes it (`discover`, `per-call`, `sdk`, `sse`, `oauth`, `cors`). */
  probe: string;
  verdict: Verdict;
  /** One line: what was checked and what came back. */
  summary: string;
  /** What a host does with this, and what to change. */
  why?: string;
}

export const pass = (probe: string, summary: string): Finding => ({ probe, verdict: "pass", summary });
export const fail = (probe: string, summary: string, why?: string): Finding => ({ probe, verdict: "fail", summary, ...(why ? { why } : {}) });
export const warn = (probe: string, summary: string, why?: string): Finding => ({ probe, verdict: "warn", summary, ...(why ? { why } : {}) });
export const skip = (probe: string, summary: string): Finding => ({ probe, verdict: "skip", summary });

/** "1 tool", "3 tools": counts in summaries. */
export const counted = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? "" : "s"}`;
