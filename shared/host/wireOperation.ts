/**
 * A `SessionOperation` as JSON, for a process that carries it to the process holding its session
 * (`FleetSessions`): the same fields, a deliver's body bytes in base64url. What comes back from
 * another process is checked for the fields every operation needs before it is applied; the rest
 * was checked by the process that received the request.
 */
import { base64url, fromBase64url } from "../bytes/base64url.ts";
import type { SessionOperation } from "./SessionOperation.ts";

type Deliver = Extract<SessionOperation, { kind: "deliver" }>;

/** An operation as it travels: a deliver's body as text. */
export type WireOperation = Exclude<SessionOperation, Deliver> | (Omit<Deliver, "body"> & { body: string });

const KINDS: ReadonlySet<string> = new Set(["open", "deliver", "post", "stream", "end"]);

export function encodeOperation(operation: SessionOperation): WireOperation {
  return operation.kind === "deliver" ? { ...operation, body: base64url(operation.body) } : operation;
}

/** The operation, or undefined for a value that is not one. */
export function decodeOperation(wired: WireOperation): SessionOperation | undefined {
  if (typeof wired !== "object" || wired === null || !KINDS.has(wired.kind) || typeof wired.sessionId !== "string") return undefined;
  if (wired.kind !== "deliver") return wired;
  const body = typeof wired.body === "string" ? fromBase64url(wired.body) : undefined;
  return body ? { ...wired, body } : undefined;
}
