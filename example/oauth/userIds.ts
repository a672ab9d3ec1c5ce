/**
 * Who a user is at the example's authorization server: the `userId` of their grants, from which
 * the resource server names their home. Two ways in, two encodings, one space:
 *
 * - the consent page's typed name: itself when it is only letters, digits, `.`, `_` and `-`;
 *   otherwise `~` and its base64url;
 * - an enterprise identity provider's user: `enterprise/<issuer>/<subject>`, both base64url, since
 *   a `sub` is unique only within its issuer.
 *
 * base64url (UTF-8, unpadded) has neither `~` nor `/`, so no two people share an id: a plain name
 * has neither, an encoded one starts with `~` and has no `/`, and an enterprise one has exactly two
 * `/`, which split it back into its issuer and subject. Every id stays inside RFC 6750's
 * bearer-token characters with no `:`, because the provider's access tokens are
 * `<userId>:<grant>:<secret>`.
 */
import { base64url } from "jose";

const PLAIN_NAME = /^[A-Za-z0-9._-]+$/;

/** The user id of a name typed into the consent page. */
export function consentUserId(name: string): string {
  return PLAIN_NAME.test(name) ? name : `~${base64url.encode(name)}`;
}

/** The user id of `subject` at the enterprise identity provider `issuer`. */
export function enterpriseUserId(issuer: string, subject: string): string {
  return `enterprise/${base64url.encode(issuer)}/${base64url.encode(subject)}`;
}
