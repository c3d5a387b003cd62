import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "@agent-ledger/db/testing";
import { toPgArray } from "./toPgArray.ts";

describe("toPgArray", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let client: pg.Client;
  beforeAll(async () => {
    db = await createTestDatabase();
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
  });
  afterAll(async () => {
    await client.end();
    await db.drop();
  });

  it("round-trips awkward strings, nulls and numbers through PostgreSQL exactly", async () => {
    const values = [
      "0xabc",
      "",
      "NULL",
      "null",
      'a "quoted", {braced} label',
      "back\\slash",
      "tab\tand\nnewline",
      "ünïcødé ✓",
      " padded ",
      null,
      "115792089237316195423570985008687907853269984665640564039457584007913129639935",
    ];
    const { rows } = await client.query("SELECT unnest($1::text[]) AS v", [toPgArray(values)]);
    expect(rows.map((r) => r.v)).toEqual(values);
    const plain = ["0xab", "12", "a-b", "x.y:z"];
    expect(toPgArray(plain)).toBe("{0xab,12,a-b,x.y:z}");
    const { rows: plainRows } = await client.query("SELECT unnest($1::text[]) AS v", [toPgArray(plain)]);
    expect(plainRows.map((r) => r.v)).toEqual(plain);
    const withEmpty = ["a", "", "b"]; // an empty element must be quoted, not vanish
    const { rows: emptyRows } = await client.query("SELECT unnest($1::text[]) AS v", [toPgArray(withEmpty)]);
    expect(emptyRows.map((r) => r.v)).toEqual(withEmpty);
    const nums = await client.query("SELECT unnest($1::bigint[])::text AS v", [toPgArray([0, 1, -5, 9007199254740991, null])]);
    expect(nums.rows.map((r) => r.v)).toEqual(["0", "1", "-5", "9007199254740991", null]);
  });
});
