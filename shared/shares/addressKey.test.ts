import { describe, expect, it } from "vitest";
import { addressKey, prefixKey } from "./addressKey.ts";

describe("addressKey", () => {
  it("keeps an IPv4 address as it is", () => {
    expect(addressKey("203.0.113.7")).toBe("203.0.113.7");
  });

  it("reads an IPv4 client of a dual-stack server (::ffff:a.b.c.d) as its IPv4 address", () => {
    expect(addressKey("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(addressKey("[::FFFF:198.51.100.1]")).toBe("198.51.100.1");
  });

  it("reduces an IPv6 address to its /64, however it is written", () => {
    for (const address of ["2001:db8:1:2:3:4:5:6", "2001:db8:1:2::9", "[2001:DB8:0001:0002::1]", "2001:0db8:0001:0002:ffff:ffff:ffff:ffff", "2001:db8:1:2::"]) {
      expect(addressKey(address), address).toBe("2001:db8:1:2::/64");
    }
  });

  it("fills the zeros a :: leaves out, on either side", () => {
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("::")).toBe("0:0:0:0::/64");
    expect(addressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressKey("fe80::1:2:3:4")).toBe("fe80:0:0:0::/64");
    expect(addressKey("2001:db8:0:0:1::")).toBe("2001:db8:0:0::/64");
  });

  it("tells different /64s apart", () => {
    expect(addressKey("2001:db8:1:2::1")).not.toBe(addressKey("2001:db8:1:3::1"));
  });
});

describe("prefixKey", () => {
  it("names an IPv4 address's /24 and an IPv6 address's /48, however written", () => {
    expect(prefixKey("203.0.113.7")).toBe("203.0.113.0/24");
    expect(prefixKey("::ffff:203.0.113.7")).toBe("203.0.113.0/24");
    for (const address of ["2001:db8:1:2:3:4:5:6", "[2001:DB8:0001:ffff::1]", "2001:db8:1::"]) expect(prefixKey(address), address).toBe("2001:db8:1::/48");
    expect(prefixKey("2001:db8::1")).toBe("2001:db8:0::/48");
    expect(prefixKey("::1")).toBe("0:0:0::/48");
  });
});
