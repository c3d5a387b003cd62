// The Cache-Control each public read can afford (declared on its route in readRoutes.ts; the reasons, per path, in
// docs/api.md, Caching). Every 200 also carries an ETag (routes/writeAnswer.ts), so an expired copy is revalidated with
// a 304 instead of downloaded again. Rows are never removed by a reorg (Tempo has deterministic finality; the indexer
// follows the head, CONFIRMATIONS=0): an answer only goes out of date when new rows arrive, or when an operator runs a
// rematch (then purge the CDN). With read replicas, add their lag bound to each figure below.

/** Anything that shows the newest rows (lists, details, head pages, search, providers): new rows visible within 30 s (10 s at a CDN that is asked). */
export const LIVE = "public, max-age=5, s-maxage=10, stale-while-revalidate=20";

/** The dashboard and its companions (previous window, series) from the rollups: the spec's 5 minutes at the edge; browsers revalidate. */
export const AGGREGATE = "public, s-maxage=300, stale-while-revalidate=600";

/** One row by id: the row never changes (short of a rematch), its session channel's life grows with settlements: 2 minutes. */
export const EVENT = "public, max-age=60, s-maxage=60, stale-while-revalidate=60";

/** A cursor page past the head: rows with ids below the cursor, which new rows (higher ids) never join; changes only with a rematch. */
export const SETTLED = "public, max-age=300, s-maxage=3600";

/** /api/openapi.json: changes only with a deploy. */
export const DOCUMENT = "public, max-age=300";
