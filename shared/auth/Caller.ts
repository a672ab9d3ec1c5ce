/**
 * A request's authenticated sender, as the routes hand it on: the principal (for handlers'
 * `ctx.auth`) and its digest, the `owner` a session is bound to. The digest, not the principal,
 * is what is stored and compared: it names the user without keeping who the user is (a subject
 * may be an e-mail address), and it is short enough to travel in a header to a session's object.
 */
import { sha256 } from "../bytes/base64url.ts";
import type { Principal } from "./Principal.ts";

export interface Caller {
  readonly auth: Principal;
  /** base64url SHA-256 of the issuer and subject: the same user gets the same owner from every token. */
  readonly owner: string;
}

export async function callerOf(principal: Principal): Promise<Caller> {
  return { auth: principal, owner: await ownerOf(principal) };
}

/** The digest that names a user everywhere it is stored (a session's owner, a task's, a user's home). */
export function ownerOf(who: { readonly issuer: string; readonly subject: string }): Promise<string> {
  // JSON, so no issuer and subject pair can be confused with another by where one ends.
  return sha256(JSON.stringify([who.issuer, who.subject]));
}
