/**
 * Bounds on a tool's or prompt's arguments, checked before any validator sees them. Validation
 * costs what the input makes it cost: classic zod keeps one issue object per bad array item, and
 * zod/mini and `@cfworker/json-schema` collect issues with `push(...all)`, which overflows the
 * stack on a long enough array. The request body's bound (`MAX_BODY_BYTES`) does not help: a few
 * MiB of `[1,1,…]` is millions of items.
 *
 * Three bounds, each a default from the environment that a tool may override in its definition:
 *
 * - `maxValues` (`MAX_ARGUMENT_VALUES`, default 10,000): array items and object members, counted
 *   at every level together, since 200 arrays of 10,000 bad items cost as much as one of two
 *   million. A validator's work and its issues are at most about this many; 10,000 classic zod
 *   issues stay well inside a Worker's 128 MB, and a model rarely writes more.
 * - `maxDepth` (`MAX_ARGUMENT_DEPTH`, default 32): the arguments object is level 1. Validators
 *   recurse once per level. Messages are already refused past `MAX_JSON_DEPTH` (64) before they
 *   are parsed (`parseMessages`); this is the tool's own, lower bound, measured on the parsed value
 *   by the same walk that counts values. A limit above `MAX_JSON_DEPTH - 2` could never be reached
 *   (the message and its `params` are two levels), so a tool's own is refused at startup.
 * - `maxBytes` (`MAX_ARGUMENT_BYTES`, default 1 MiB): the arguments as compact UTF-8 JSON (escapes
 *   counted as the character they stand for). What a task stores of them is bounded the same.
 *
 * The walk is iterative (no recursion a deep value could exhaust) and stops at the first bound
 * passed, so its cost is bounded by the limits, not by the input. Not here: the schema itself,
 * the message's own bounds (`parseMessages`, `readBodyBytes`).
 */
import type { Config } from "../config/readConfig.ts";
import { MAX_JSON_DEPTH } from "../jsonrpc/parseMessages.ts";
import { utf8Length } from "../bytes/utf8Length.ts";
import { formatPath } from "./standardSchema.ts";

export interface ArgumentLimits {
  /** Bytes of the arguments as compact UTF-8 JSON. */
  maxBytes: number;
  /** Levels of nesting; the arguments object is level 1. */
  maxDepth: number;
  /** Array items and object members, counted at every level together. */
  maxValues: number;
}

/** The deepest arguments a message can carry: `MAX_JSON_DEPTH` less the message and its `params`. */
export const MAX_REACHABLE_ARGUMENT_DEPTH = MAX_JSON_DEPTH - 2;

const NAMES: readonly string[] = ["maxBytes", "maxDepth", "maxValues"];

/**
 * A definition's own limits, checked at startup.
 *
 * @param what Names the definition in the error, e.g. `Tool search`.
 * @throws TypeError naming the limits when one is not a positive integer, is not a limit, or is a
 *   `maxDepth` no message can reach.
 */
export function ownLimits(limits: unknown, what: string): Partial<ArgumentLimits> {
  if (limits === undefined) return {};
  const fine =
    typeof limits === "object" &&
    limits !== null &&
    Object.entries(limits).every(
      ([name, value]) => NAMES.includes(name) && Number.isSafeInteger(value) && value > 0 && (name !== "maxDepth" || value <= MAX_REACHABLE_ARGUMENT_DEPTH),
    );
  if (!fine) {
    throw new TypeError(
      `${what}'s limits must be { maxBytes?, maxDepth?, maxValues? } of positive integers, maxDepth at most ${MAX_REACHABLE_ARGUMENT_DEPTH} (no message nests deeper than ${MAX_JSON_DEPTH}); got ${JSON.stringify(limits)}`,
    );
  }
  return limits as Partial<ArgumentLimits>;
}

/** A definition's own limits, the rest from the environment's `MAX_ARGUMENT_*`. */
export function limitsWith(own: Partial<ArgumentLimits>, config: Config): ArgumentLimits {
  return {
    maxBytes: own.maxBytes ?? config.maxArgumentBytes,
    maxDepth: own.maxDepth ?? config.maxArgumentDepth,
    maxValues: own.maxValues ?? config.maxArgumentValues,
  };
}

/** An object or array still to be looked into, and how to name where it is. */
interface Pending {
  value: object;
  depth: number;
  parent: Pending | undefined;
  key: PropertyKey;
}

/**
 * A `✖` line (and `→ at` the place) naming the first bound the arguments pass, or undefined when
 * they pass none. The limits are inclusive.
 *
 * @example
 * argumentsPastLimits({ states: new Array(20_000).fill(1) }, { maxBytes: 1 << 20, maxDepth: 32, maxValues: 10_000 })
 * // "✖ The arguments hold more than 10000 values (…); the limit is 10000 (maxValues)\n  → at states"
 */
export function argumentsPastLimits(args: unknown, limits: ArgumentLimits): string | undefined {
  let bytes = 0;
  let values = 0;
  const pending: Pending[] = [];
  const visit = (value: unknown, depth: number, parent: Pending | undefined, key: PropertyKey) => {
    if (typeof value === "object" && value !== null) {
      bytes += 2; // the brackets
      pending.push({ value, depth, parent, key });
    } else bytes += scalarBytes(value);
  };
  visit(args, 1, undefined, "");
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next.depth > limits.maxDepth) return past(`nest deeper than ${limits.maxDepth} levels`, limits.maxDepth, "maxDepth", next);
    let members = 0;
    if (Array.isArray(next.value)) {
      members = next.value.length;
      values += members;
      if (values > limits.maxValues) return tooMany(limits, next);
      for (let i = 0; i < members; i++) visit(next.value[i], next.depth + 1, next, i);
    } else {
      const object = next.value as Record<string, unknown>;
      for (const key in object) {
        if (++values > limits.maxValues) return tooMany(limits, next);
        members++;
        bytes += utf8Length(key) + 3; // quotes and colon
        visit(object[key], next.depth + 1, next, key);
      }
    }
    bytes += Math.max(0, members - 1); // commas
    if (bytes > limits.maxBytes) break;
  }
  return bytes > limits.maxBytes ? past(`take more than ${limits.maxBytes} bytes as JSON`, limits.maxBytes, "maxBytes") : undefined;
}

function tooMany(limits: ArgumentLimits, place: Pending): string {
  return past(`hold more than ${limits.maxValues} values (array items and object members, at any depth)`, limits.maxValues, "maxValues", place);
}

/** The one sentence shape: what the arguments do, the limit and its name, and where. */
function past(what: string, limit: number, name: keyof ArgumentLimits, place?: Pending): string {
  return `✖ The arguments ${what}; the limit is ${limit} (${name})${place ? at(place) : ""}`;
}

function scalarBytes(value: unknown): number {
  if (typeof value === "string") return utf8Length(value) + 2;
  if (typeof value === "number" && Number.isFinite(value)) return String(value).length;
  if (value === true) return 4;
  if (value === false) return 5;
  return 4; // null, and what JSON would write as null
}

/** `\n  → at states[3]` for a place inside the arguments; nothing for the arguments object itself. */
function at(place: Pending): string {
  const path: PropertyKey[] = [];
  for (let p: Pending | undefined = place; p?.parent !== undefined; p = p.parent) path.push(p.key);
  return path.length === 0 ? "" : `\n  → at ${formatPath(path.reverse())}`;
}
