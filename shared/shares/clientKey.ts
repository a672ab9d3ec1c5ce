/**
 * Who a request counts as, for fair shares: the signed-in principal (its digest, `Caller.owner`),
 * else its network address — by digest, so no address is stored, and an IPv6 address by its /64
 * (`addressKey`) — else, where the runtime knows neither, one shared "anonymous" client.
 *
 * An address's key also names its network (`prefixKey`: IPv4 /24, IPv6 /48), by digest, so that
 * where a host counts a total, one network's addresses are counted together against what is free
 * (`networkOf`). A principal, and the anonymous client, is its own network.
 */
import type { Caller } from "../auth/Caller.ts";
import { addressKey, prefixKey } from "./addressKey.ts";
import { sha256 } from "../bytes/base64url.ts";

export const ANONYMOUS = "anonymous";
const ADDRESS = "address:";
/** Between an address key's network digest and its own: base64url never holds it. */
const WITHIN = ".";

/** @example await clientKey(undefined, "203.0.113.7") // "address:<digest of 203.0.113.0/24>.<digest of 203.0.113.7>" */
export async function clientKey(caller: Caller | undefined, address: string | undefined): Promise<string> {
  if (caller) return caller.owner;
  if (address === undefined) return ANONYMOUS;
  const [network, own] = await Promise.all([sha256(prefixKey(address)), sha256(addressKey(address))]);
  return `${ADDRESS}${network}${WITHIN}${own}`;
}

/** Whether a client key names a signed-in principal (its digest), rather than an address or the anonymous client. */
export function isPrincipalKey(key: string): boolean {
  return key !== ANONYMOUS && !key.startsWith(ADDRESS);
}

/** The network a client key belongs to: an address's /24 or /48 (every address of it gives the same), else the key itself. */
export function networkOf(key: string): string {
  if (!key.startsWith(ADDRESS)) return key;
  const within = key.indexOf(WITHIN, ADDRESS.length);
  return within === -1 ? key : key.slice(0, within);
}
