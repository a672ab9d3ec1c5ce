/**
 * Who a request counts as, for fair shares: the signed-in principal (its digest, `Caller.owner`),
 * else its network address — by its digest, so no address is stored, and an IPv6 address by its
 * /64 (`addressKey`) — else, where the runtime knows neither, one shared "anonymous" client.
 */
import type { Caller } from "../auth/Caller.ts";
import { addressKey } from "../auth/RateLimiter.ts";
import { sha256 } from "../bytes/base64url.ts";

export const ANONYMOUS = "anonymous";
const ADDRESS = "address:";

export async function clientKey(caller: Caller | undefined, address: string | undefined): Promise<string> {
  if (caller) return caller.owner;
  return address === undefined ? ANONYMOUS : `${ADDRESS}${await sha256(addressKey(address))}`;
}

/** Whether a client key names a signed-in principal (its digest), rather than an address or the anonymous client. */
export function isPrincipalKey(key: string): boolean {
  return key !== ANONYMOUS && !key.startsWith(ADDRESS);
}
