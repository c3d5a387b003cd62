import { describe, expect, it } from "vitest";
import { clientRateKey } from "./clientRateKey.ts";

describe("clientRateKey", () => {
  it("TRUST_PROXY 0: the socket peer only, whatever X-Forwarded-For says", () => {
    expect(clientRateKey("203.0.113.7", undefined, 0)).toBe("ip4:203.0.113.7");
    expect(clientRateKey("203.0.113.7", "198.51.100.1", 0)).toBe("ip4:203.0.113.7");
    expect(clientRateKey("203.0.113.7", ["198.51.100.1", "198.51.100.2"], 0)).toBe("ip4:203.0.113.7");
  });

  it("TRUST_PROXY n: the entry n from the right of X-Forwarded-For + [peer]; what the client wrote further left is ignored", () => {
    // client 198.51.100.9 forged "1.1.1.1"; proxy A appended the client's address; proxy B appended A's; B is the peer
    const xff = "1.1.1.1, 198.51.100.9, 10.0.0.2";
    expect(clientRateKey("10.0.0.3", xff, 1)).toBe("ip4:10.0.0.2");
    expect(clientRateKey("10.0.0.3", xff, 2)).toBe("ip4:198.51.100.9");
    expect(clientRateKey("10.0.0.3", xff, 3)).toBe("ip4:1.1.1.1");
    // repeated headers are one list, in order
    expect(clientRateKey("10.0.0.3", ["1.1.1.1", "198.51.100.9,10.0.0.2"], 2)).toBe("ip4:198.51.100.9");
    // a chain shorter than the hops: its leftmost entry; no header at all: the peer
    expect(clientRateKey("10.0.0.3", "198.51.100.9", 5)).toBe("ip4:198.51.100.9");
    expect(clientRateKey("10.0.0.3", undefined, 1)).toBe("ip4:10.0.0.3");
    expect(clientRateKey("10.0.0.3", " , ", 1)).toBe("ip4:10.0.0.3");
  });

  it("a chosen entry that is not an address falls back to the peer", () => {
    expect(clientRateKey("10.0.0.3", "unknown", 1)).toBe("ip4:10.0.0.3");
    expect(clientRateKey("10.0.0.3", "127.1", 1)).toBe("ip4:10.0.0.3");
    expect(clientRateKey("10.0.0.3", "0x7f.0.0.1", 1)).toBe("ip4:10.0.0.3");
    expect(clientRateKey("10.0.0.3", "evil, 198.51.100.9", 2)).toBe("ip4:10.0.0.3");
    expect(clientRateKey(undefined, undefined, 0)).toBe("unknown");
    expect(clientRateKey("", "x", 1)).toBe("unknown");
  });

  it("IPv4-mapped IPv6 counts as IPv4; ports and brackets are dropped", () => {
    expect(clientRateKey("::ffff:203.0.113.7", undefined, 0)).toBe("ip4:203.0.113.7");
    expect(clientRateKey("::ffff:cb00:7107", undefined, 0)).toBe("ip4:203.0.113.7");
    expect(clientRateKey("10.0.0.3", "203.0.113.7:51234", 1)).toBe("ip4:203.0.113.7");
    expect(clientRateKey("10.0.0.3", "[2001:db8::1]:443", 1)).toBe("ip6:2001:db8::/64");
    expect(clientRateKey("10.0.0.3", "[2001:db8::1]", 1)).toBe("ip6:2001:db8::/64");
  });

  it("IPv6 clients are keyed by their /64: one subscriber cannot rotate through its prefix", () => {
    const a = clientRateKey("2001:db8:1:2:aaaa::1", undefined, 0);
    expect(a).toBe("ip6:2001:db8:1:2::/64");
    expect(clientRateKey("2001:db8:1:2:ffff:ffff:ffff:fffe", undefined, 0)).toBe(a);
    expect(clientRateKey("2001:db8:1:3::1", undefined, 0)).not.toBe(a);
    expect(clientRateKey("fe80::1%eth0", undefined, 0)).toBe("ip6:fe80::/64");
    expect(clientRateKey("::1", undefined, 0)).toBe("ip6:::/64");
  });

  it("reads only a whole bracketed IPv6 literal or a whole IPv4:port; anything around them makes the entry unusable", () => {
    expect(clientRateKey("10.0.0.3", "x[2001:db8::1]", 1)).toBe("ip4:10.0.0.3");
    expect(clientRateKey("10.0.0.3", "[2001:db8::1]x", 1)).toBe("ip4:10.0.0.3");
    expect(clientRateKey("10.0.0.3", "[2001:db8::1]:", 1)).toBe("ip4:10.0.0.3");
    expect(clientRateKey("10.0.0.3", "203.0.113.7:443x", 1)).toBe("ip4:10.0.0.3");
    expect(clientRateKey("10.0.0.3", "203.0.113.7:", 1)).toBe("ip4:10.0.0.3");
    expect(clientRateKey("10.0.0.3", "[203.0.113.7]:8080", 1)).toBe("ip4:203.0.113.7");
  });

  it("ignores empty list elements (RFC 9110 §5.6.1) when counting hops", () => {
    expect(clientRateKey("10.0.0.3", "198.51.100.9,,10.0.0.2", 2)).toBe("ip4:198.51.100.9");
    expect(clientRateKey("10.0.0.3", "198.51.100.9, ", 1)).toBe("ip4:198.51.100.9");
  });

  it("counts whole hops only: a fractional TRUST_PROXY is rounded down", () => {
    const xff = "1.1.1.1, 198.51.100.9, 10.0.0.2";
    expect(clientRateKey("10.0.0.3", xff, 1.9)).toBe("ip4:10.0.0.2");
    expect(clientRateKey("10.0.0.3", xff, 2.5)).toBe("ip4:198.51.100.9");
  });
});
