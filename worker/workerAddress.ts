/**
 * The client's address as a Worker knows it, for rate limits and fair shares. On Cloudflare the
 * edge writes `CF-Connecting-IP` over whatever the client sent, and gives the request its `cf`
 * properties. Self-hosted workerd has no edge in front: there the header is the client's own
 * claim, and the address is the socket's peer, which workerd puts in `cf.clientIp` ("ip:port",
 * "[ipv6]:port"). A request with no `cf` at all has no address here.
 *
 * Not here: a proxy in front of self-hosted workerd (`TRUST_PROXY` names its header, read over this).
 */
import { requestHeaders } from "../shared/http/requestHeaders.ts";

/** @example workerAddress(request) // "203.0.113.7": CF-Connecting-IP on Cloudflare; workerd's own peer when self-hosted */
export function workerAddress(request: Request): string | undefined {
  const cf = (request as { cf?: { clientIp?: unknown } }).cf;
  if (!cf) return undefined;
  if (typeof cf.clientIp === "string") return /^\[(.*)\]:\d+$/.exec(cf.clientIp)?.[1] ?? /^([^:]*):\d+$/.exec(cf.clientIp)?.[1] ?? cf.clientIp;
  return requestHeaders(request).get("cf-connecting-ip") ?? undefined;
}
