import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createPgPool } from "@agent-ledger/db";
import { createTestDatabase } from "@agent-ledger/db/testing";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../src/errors.ts";
import { getDashboard } from "../src/rest/getDashboard.ts";
import { getOpenApi } from "../src/rest/getOpenApi.ts";
import { READ_ROUTES, type ReadDeps } from "../src/rest/readRoutes.ts";
import type { RestResponse } from "../src/rest/types.ts";
import { createRouter } from "../src/routes/createRouter.ts";
import type { JsonRoute } from "../src/routes/Route.ts";
import { READ_SURFACE } from "../src/routes/surfaces.ts";
import { createServices } from "../src/services/createServices.ts";
import { countingPool } from "./support/countingPool.ts";
import { silentLog } from "./support/startTestApp.ts";

// REST request coalescing over real HTTP and a real (migrated) database: identical reads in flight share one
// computation and one serialization; different paths or query strings do not; nothing is kept once sent; a failure
// reaches every request that waited for it and is then forgotten. Requests are held in flight deterministically: the
// handler reaches the coalescing point synchronously on the server's `request` event, so once the server has seen
// every request, all of them have joined, and only then is the computation let go.

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
const servers: Server[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPgPool(db.url, { max: 5, applicationName: "agent-ledger-api-test" });
  pool.on("error", () => {});
}, 60_000);

afterAll(async () => {
  for (const s of servers) s.closeAllConnections(), s.close();
  await pool?.end();
  await db?.drop();
});

type Route = JsonRoute<ReadDeps>;
/** A test route of the read surface (public GET, coalesced). */
const readRoute = (path: string, handle: Route["handle"]): Route => ({
  path,
  method: "GET",
  auth: "none",
  surface: READ_SURFACE,
  handle,
  openapi: { omit: "test route" },
});

async function serve(options: { routes?: readonly Route[]; db?: pg.Pool; dashboardCacheTtlMs?: number } = {}) {
  const services = createServices({ db: options.db ?? pool, dashboardCacheTtlMs: options.dashboardCacheTtlMs ?? 0 });
  const deps: ReadDeps = { services, openApi: getOpenApi({}) };
  const handle = createRouter({
    mounted: (options.routes ?? READ_ROUTES).map((route) => ({ path: route.path, route, deps })),
    db: pool,
    log: silentLog,
    now: () => new Date(),
    origins: new Set(),
    fallback: async (_req, res) => void res.writeHead(404).end(),
  });
  let arrived = 0;
  const server = createServer((req, res) => {
    arrived++;
    void handle(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, arrived: () => arrived, services };
}

interface Raw {
  status: number;
  length: string | null;
  text: string;
}

async function get(url: string, method = "GET"): Promise<Raw> {
  const res = await fetch(url, { method });
  return { status: res.status, length: res.headers.get("content-length"), text: await res.text() };
}

/** Sends the requests at once and calls `release` once the server has seen all of them. */
async function together(server: { arrived: () => number }, sends: (() => Promise<Raw>)[], release: () => void): Promise<Raw[]> {
  const before = server.arrived();
  const answers = Promise.all(sends.map((send) => send()));
  while (server.arrived() - before < sends.length) await new Promise((resolve) => setTimeout(resolve, 2));
  release();
  return answers;
}

/** A route whose computations wait until released, counting them; `state` and `failWith` steer the next answer. */
interface GatedRoute {
  calls: number;
  state: string;
  failWith: ApiError | null;
  releaseAll: () => void;
  route: Route;
}

function gatedRoute(): GatedRoute {
  const gates: (() => void)[] = [];
  const route: GatedRoute = {
    calls: 0,
    state: "first",
    failWith: null as ApiError | null,
    releaseAll: () => gates.splice(0).forEach((open) => open()),
    route: readRoute("/api/things/:id", async ({ params, query }) => {
      route.calls++;
      await new Promise<void>((resolve) => gates.push(resolve));
      const failure = route.failWith;
      route.failWith = null;
      if (failure) throw failure;
      return { body: { id: params.id, q: query.get("q"), state: route.state } };
    }),
  };
  return route;
}

describe("REST request coalescing", () => {
  it("shares one computation between identical reads in flight (HEAD too); other paths or queries compute apart", async () => {
    const g = gatedRoute();
    const s = await serve({ routes: [g.route] });
    const same = `${s.url}/api/things/a?q=1`;
    const answers = await together(
      s,
      [
        () => get(same),
        () => get(same),
        () => get(same),
        () => get(same, "HEAD"),
        () => get(`${s.url}/api/things/a?q=2`),
        () => get(`${s.url}/api/things/b?q=1`),
      ],
      g.releaseAll,
    );
    expect(g.calls).toBe(3);
    const [a, b, c, head, otherQuery, otherPath] = answers as [Raw, Raw, Raw, Raw, Raw, Raw];
    expect(JSON.parse(a.text)).toEqual({ id: "a", q: "1", state: "first" });
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    expect(head).toEqual({ status: 200, length: a.length, text: "" });
    expect(JSON.parse(otherQuery.text)).toEqual({ id: "a", q: "2", state: "first" });
    expect(JSON.parse(otherPath.text)).toEqual({ id: "b", q: "1", state: "first" });
  });

  it("keeps nothing: the next request computes again and sees what changed", async () => {
    const g = gatedRoute();
    const s = await serve({ routes: [g.route] });
    const url = `${s.url}/api/things/a`;
    await together(s, [() => get(url)], g.releaseAll);
    g.state = "second";
    const [again] = await together(s, [() => get(url)], g.releaseAll);
    expect(g.calls).toBe(2);
    expect(JSON.parse(again!.text).state).toBe("second");
  });

  it("hands a failure to every request that waited for it, then forgets it", async () => {
    const g = gatedRoute();
    const s = await serve({ routes: [g.route] });
    const url = `${s.url}/api/things/a`;
    g.failWith = new ApiError("not_found", "no such thing");
    const failed = await together(s, [() => get(url), () => get(url), () => get(url)], g.releaseAll);
    expect(g.calls).toBe(1);
    for (const f of failed) {
      expect(f.status).toBe(404);
      expect(JSON.parse(f.text)).toEqual({ error: { code: "not_found", message: "no such thing" } });
    }
    const [ok] = await together(s, [() => get(url)], g.releaseAll);
    expect(ok!.status).toBe(200);
    expect(g.calls).toBe(2);
  });

  it("applies to the product's routes: concurrent identical searches cost the SQL of one", async () => {
    const sql = countingPool(pool);
    const s = await serve({ db: sql.db });
    const url = `${s.url}/api/search?q=demo`;
    await get(url);
    const one = sql.count();
    expect(one).toBeGreaterThan(0);
    let release!: () => void;
    sql.hold(new Promise<void>((resolve) => (release = resolve)));
    const answers = await together(
      s,
      Array.from({ length: 5 }, () => () => get(url)),
      () => {
        sql.hold(null);
        release();
      },
    );
    for (const a of answers) expect(a).toEqual(answers[0]);
    expect(answers[0]!.status).toBe(200);
    expect(sql.count()).toBe(2 * one);
  });

  it("serializes a response object returned again only once (the dashboard while it is cached)", async () => {
    let serializations = 0;
    const response: RestResponse = { body: { toJSON: () => (serializations++, { ok: true }) } };
    const s = await serve({ routes: [readRoute("/api/same", async () => response)] });
    expect(JSON.parse((await get(`${s.url}/api/same`)).text)).toEqual({ ok: true });
    expect(JSON.parse((await get(`${s.url}/api/same`)).text)).toEqual({ ok: true });
    expect(serializations).toBe(1);
    // the dashboard route returns the same response object exactly while the services' cache returns the same dashboard
    const cached = createServices({ db: pool, dashboardCacheTtlMs: 60_000 });
    const query = { w: "all" as const };
    expect(await getDashboard({ params: {}, query, services: cached })).toBe(await getDashboard({ params: {}, query, services: cached }));
    const uncached = createServices({ db: pool, dashboardCacheTtlMs: 0 });
    expect(await getDashboard({ params: {}, query, services: uncached })).not.toBe(await getDashboard({ params: {}, query, services: uncached }));
  });
});
