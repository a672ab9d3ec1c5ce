/**
 * The client's network address, as rate limits and fair shares count it: the runtime's own
 * (the socket's peer on Deno, Node and self-hosted workerd; `CF-Connecting-IP` where Cloudflare's
 * edge wrote it), or, behind a
 * reverse proxy the operator names in `TRUST_PROXY`, the header that proxy writes — without which
 * every client has the proxy's address and one busy client spends everyone's limit.
 *
 * `x-forwarded-for` is read from the right: each proxy appends the address it saw, so the last
 * entry is the one the trusted proxy wrote and the ones before it are the client's to invent. One
 * proxy in front is assumed. A header that is missing, or holds no IP address, falls back to the
 * runtime's own address: a key is never a string of the sender's choosing.
 *
 * Not here: whether the proxy is really there (the operator says so; a server reached around its
 * proxy would count a client by what it claims).
 */
import type { TrustProxy } from "../config/readConfig.ts";
import { requestHeaders } from "./requestHeaders.ts";

/** An IPv4 or IPv6 literal, loosely (hex digits, dots, colons, brackets), and no longer than one can be. */
const IP_LITERAL = /^\[?[0-9A-Fa-f:.]{2,45}\]?$/;

/**
 * A request's client address as its handlers get it: read when first called, once (it is a
 * header read, a platform call, and most requests never need it); undefined where the runtime
 * does not know it.
 */
export type ClientAddress = () => string | undefined;

/** @example clientAddress(request, "x-forwarded-for", "10.0.0.2") // "203.0.113.7" for X-Forwarded-For: 198.51.100.1, 203.0.113.7 */
export function clientAddress(request: Request, trustProxy: TrustProxy | undefined, runtimeAddress: string | undefined): string | undefined {
  if (trustProxy === undefined) return runtimeAddress;
  const header = requestHeaders(request).get(trustProxy);
  if (header === null) return runtimeAddress;
  const value = (trustProxy === "x-forwarded-for" ? header.slice(header.lastIndexOf(",") + 1) : header).trim();
  return IP_LITERAL.test(value) ? value : runtimeAddress;
}
