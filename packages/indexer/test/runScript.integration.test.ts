import { createTestDatabase } from "@agent-ledger/db/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runScript } from "../src/store/runScript.ts";

// runScript sends a multi-statement script and the data of its COPY statements in one go, before PostgreSQL asks.
// Against real PostgreSQL: data lands in the right COPY, rows come back in order, and after a failure anywhere the
// leftover COPY data is dropped by the server and the same connection works on.

describe("runScript", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let client: pg.Client;

  beforeAll(async () => {
    db = await createTestDatabase();
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await client.query("CREATE TABLE a (n int PRIMARY KEY, s text); CREATE TABLE b (n int, s text)");
  });
  afterAll(async () => {
    await client?.end();
    await db?.drop();
  });

  const lines = (from: number, to: number, tag: string) => {
    const out: string[] = [];
    for (let i = from; i <= to; i++) out.push(`${i}\t${tag}${i}\n`);
    return out; // one chunk per line: chunking must not matter
  };

  it("feeds each COPY its own data, in order, and returns the rows of every statement", async () => {
    const rows = await runScript(
      client,
      ["BEGIN", "COPY a (n, s) FROM STDIN", "SELECT count(*)::int AS n FROM a", "COPY b (n, s) FROM STDIN", "SELECT max(n), min(s) FROM b", "COMMIT"].join(
        ";\n",
      ),
      [lines(1, 500, "a"), [lines(1, 3, "b").join("")]],
    );
    expect(rows).toEqual([["500"], ["3", "b1"]]);
    expect((await client.query("SELECT count(*)::int AS n, max(s) AS s FROM a")).rows[0]).toEqual({ n: 500, s: "a99" });
  });

  it("a failing COPY rejects with PostgreSQL's error; its data and the next COPY's are dropped; the connection works on", async () => {
    const script = ["BEGIN", "COPY b (n, s) FROM STDIN", "COPY a (n, s) FROM STDIN", "COPY b (n, s) FROM STDIN", "COMMIT"].join(";\n");
    await expect(runScript(client, script, [lines(1000, 1002, "x"), lines(499, 510, "dup"), lines(2000, 2001, "y")])).rejects.toMatchObject({ code: "23505" });
    await client.query("ROLLBACK");
    const counts = (await client.query("SELECT (SELECT count(*) FROM a)::int AS a, (SELECT count(*) FROM b)::int AS b")).rows[0];
    expect(counts).toEqual({ a: 500, b: 3 });
    expect(await runScript(client, "SELECT 1; SELECT 'ok'")).toEqual([["1"], ["ok"]]);
  });

  it("an error before any COPY is reported the same way, and the queued COPY data never reaches a table", async () => {
    const script = ["BEGIN", "DO $$ BEGIN RAISE EXCEPTION 'stop' USING ERRCODE = 'AL999'; END $$", "COPY a (n, s) FROM STDIN", "COMMIT"].join(";\n");
    await expect(runScript(client, script, [lines(600, 700, "never")])).rejects.toMatchObject({ code: "AL999" });
    await client.query("ROLLBACK");
    expect((await client.query("SELECT count(*)::int AS n FROM a WHERE n >= 600")).rows[0].n).toBe(0);
    expect((await client.query("SELECT 2 AS two")).rows[0].two).toBe(2);
  });

  it("a copy that throws while its text is produced fails the COPY on the server (no hang) and rejects with that error", async () => {
    const broken = (function* () {
      yield "800\tfirst\n";
      throw new RangeError("Invalid time value");
    })();
    const script = ["BEGIN", "COPY a (n, s) FROM STDIN", "COPY b (n, s) FROM STDIN", "COMMIT"].join(";\n");
    await expect(runScript(client, script, [broken, lines(3000, 3001, "z")])).rejects.toThrow("Invalid time value");
    await client.query("ROLLBACK");
    const counts = (await client.query("SELECT (SELECT count(*) FROM a WHERE n >= 800)::int AS a, (SELECT count(*) FROM b WHERE n >= 3000)::int AS b")).rows[0];
    expect(counts).toEqual({ a: 0, b: 0 });
    expect(await runScript(client, "SELECT 'still here'")).toEqual([["still here"]]);
  });
});
