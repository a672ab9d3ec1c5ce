/**
 * What the Node-side benchmarks (`node.mjs`, `stores.mjs`) measure and print alike: a process's
 * CPU from /proc, the JSON-RPC answer to one id in a JSON or event-stream body, and a round's
 * figures as median (range).
 */
import { readdirSync, readFileSync } from "node:fs";

/** Nanoseconds on CPU of every thread of process `pid` (0 for a process gone). */
export function cpuNs(pid) {
  let tasks = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0;
  }
  let ns = 0;
  for (const tid of tasks) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // the thread ended between listing and reading
    }
  }
  return ns;
}

/** The JSON-RPC message answering `id` in a JSON or an event-stream body. */
export function answerOf(text, id) {
  const bodies = text.startsWith("{") ? [text] : text.split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5));
  for (const body of bodies) {
    const message = JSON.parse(body);
    if (message.id === id) return message;
  }
  return undefined;
}

/** Median (range) of `values`; an even count's median is the mean of its middle two, so two rounds do not print their best. */
export function range(values, digits) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  const median = Number.isInteger(middle) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[Math.floor(middle)];
  return `${median.toFixed(digits)} (${sorted[0].toFixed(digits)}–${sorted.at(-1).toFixed(digits)})`;
}
