import { describe, expect, it } from "vitest";
import { parseApiEnv } from "./env.ts";

describe("parseApiEnv: read replicas", () => {
  it("DATABASE_READ_URLS unset or empty = no replicas; defaults for the lag bound and the probe interval", () => {
    for (const env of [{}, { DATABASE_READ_URLS: "" }, { DATABASE_READ_URLS: " , " }]) {
      const parsed = parseApiEnv(env);
      expect(parsed.DATABASE_READ_URLS).toEqual([]);
      expect(parsed.READ_REPLICA_MAX_LAG_BLOCKS).toBe(10);
      expect(parsed.READ_REPLICA_CHECK_MS).toBe(1_000);
    }
  });

  it("splits a comma-separated list, and refuses an entry that is not a URL without echoing it", () => {
    const parsed = parseApiEnv({ DATABASE_READ_URLS: "postgresql://r@a:5432/x, postgresql://r:pw@b:5432/x", READ_REPLICA_MAX_LAG_BLOCKS: "0" });
    expect(parsed.DATABASE_READ_URLS).toEqual(["postgresql://r@a:5432/x", "postgresql://r:pw@b:5432/x"]);
    expect(parsed.READ_REPLICA_MAX_LAG_BLOCKS).toBe(0);
    expect(() => parseApiEnv({ DATABASE_READ_URLS: "postgresql://r@a/x,secret-not-a-url" })).toThrow(/DATABASE_READ_URLS/);
    expect(() => parseApiEnv({ DATABASE_READ_URLS: "postgresql://r@a/x,secret-not-a-url" })).not.toThrow(/secret/);
    expect(() => parseApiEnv({ READ_REPLICA_CHECK_MS: "0" })).toThrow(/READ_REPLICA_CHECK_MS/);
  });
});
