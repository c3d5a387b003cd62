import { describe, expect, it } from "vitest";
import { parseIndexerEnv } from "./env.ts";

describe("parseIndexerEnv", () => {
  it("fetches two ranges ahead by default and takes FETCH_AHEAD from the environment", () => {
    expect(parseIndexerEnv({}).FETCH_AHEAD).toBe(2);
    expect(parseIndexerEnv({ FETCH_AHEAD: "1" }).FETCH_AHEAD).toBe(1);
  });

  it("refuses a FETCH_AHEAD below 1 or not an integer, naming the variable", () => {
    expect(() => parseIndexerEnv({ FETCH_AHEAD: "0" })).toThrow(/FETCH_AHEAD/);
    expect(() => parseIndexerEnv({ FETCH_AHEAD: "1.5" })).toThrow(/FETCH_AHEAD/);
  });

  it("refuses CHUNK_MIN_BLOCKS above CHUNK_MAX_BLOCKS", () => {
    expect(() => parseIndexerEnv({ CHUNK_MIN_BLOCKS: "10", CHUNK_MAX_BLOCKS: "5" })).toThrow(/CHUNK_MIN_BLOCKS > CHUNK_MAX_BLOCKS/);
  });

  it("serves metrics on loopback port 9465 by default; INDEXER_METRICS_PORT -1 disables, 0 picks a free port", () => {
    expect(parseIndexerEnv({})).toMatchObject({ INDEXER_METRICS_PORT: 9465, INDEXER_METRICS_HOST: "127.0.0.1" });
    expect(parseIndexerEnv({ INDEXER_METRICS_PORT: "-1", INDEXER_METRICS_HOST: "0.0.0.0" })).toMatchObject({
      INDEXER_METRICS_PORT: -1,
      INDEXER_METRICS_HOST: "0.0.0.0",
    });
    expect(() => parseIndexerEnv({ INDEXER_METRICS_PORT: "70000" })).toThrow(/INDEXER_METRICS_PORT/);
  });
});
