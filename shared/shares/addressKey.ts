/**
 * The keys a client's network address is counted under, by rate limits, fair shares and a
 * process's connection cap: the address itself (an IPv6 one by its /64), and the wider network it
 * belongs to. Addresses are compared by these keys only, so one client cannot pass for many by
 * spelling its address another way (`::ffff:a.b.c.d`, leading zeros, `::`).
 */

/**
 * The key a client address is counted under: an IPv4 address as it is (also when a dual-stack
 * server reports it IPv4-mapped, `::ffff:a.b.c.d`), an IPv6 address by its /64 prefix (one
 * subscriber's network: a client holding a /64 could otherwise take a fresh address for each
 * request).
 */
export function addressKey(address: string): string {
  const ipv4 = ipv4Of(address);
  return ipv4 ?? `${ipv6Groups(address).slice(0, 4).join(":")}::/64`;
}

/**
 * The wider network an address belongs to, counted as one client while a limiter's table is
 * crowded: IPv4 by /24, IPv6 by /48 (a site's usual allocation, RFC 6177).
 *
 * @example prefixKey("203.0.113.7") // "203.0.113.0/24"; prefixKey("2001:db8:1:2::1") // "2001:db8:1::/48"
 */
export function prefixKey(address: string): string {
  const ipv4 = ipv4Of(address);
  if (ipv4 !== undefined) return `${ipv4.slice(0, ipv4.lastIndexOf("."))}.0/24`;
  return `${ipv6Groups(address).slice(0, 3).join(":")}::/48`;
}

/** An IPv4 address, given as such or IPv4-mapped; undefined for IPv6. */
function ipv4Of(address: string): string | undefined {
  if (!address.includes(":")) return address;
  return /^\[?::ffff:(\d{1,3}(?:\.\d{1,3}){3})\]?$/i.exec(address)?.[1];
}

/** The eight groups of an IPv6 address, the zeros `::` leaves out filled in, each lower case without leading zeros. */
function ipv6Groups(address: string): string[] {
  const [head = "", tail] = address.replace(/^\[|\]$/g, "").split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return groups.map((g) => (g.replace(/^0+(?=.)/, "") || "0").toLowerCase());
}
