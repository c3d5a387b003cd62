import { parseRegistry, verifyWebhook } from "@agent-ledger/core";
import { createPgPool, loadRegistryIntoDb } from "@agent-ledger/db";
import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningWorker } from "../../worker/src/startWorker.ts";
import {
  createEventSeeder,
  deletePrefixKeys,
  masterKey,
  randomAddress,
  setupDb,
  startReceiver,
  startTestWorker,
  uniquePrefix,
  waitFor,
  type ReceivedRequest,
  type Receiver,
  type TestDb,
} from "../../worker/test/helpers.ts";
import { startTestApp, type TestApp } from "./support/startTestApp.ts";
import { createTestUser, type TestUser } from "./support/walletFixtures.ts";

// The delivery log shows what was sent (docs/webhooks.md § Delivery log): the real worker POSTs to a loopback
// receiver and records the attempt's body and headers; the API (REST and GraphQL) reports exactly what the receiver
// got — the raw body byte for byte and every header the worker set — and never the signing secret.

const AGENT = { id: "logged-agent", wallet: randomAddress() };

let db: TestDb;
let t: TestApp;
let worker: RunningWorker;
let receiver: Receiver;
let alice: TestUser;
let seeder: ReturnType<typeof createEventSeeder>;
const prefix = uniquePrefix("deliveryreq");
const got: ReceivedRequest[] = [];
let failing = true;

async function call(method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${alice.bearer}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${t.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function gql(query: string, variables: Record<string, unknown>) {
  const res = await fetch(`${t.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${alice.bearer}` },
    body: JSON.stringify({ query, variables }),
  });
  return res.json() as Promise<{ data?: Record<string, any>; errors?: unknown[] }>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** The stored request equals the received one: same body bytes; every stored header arrived with that value; every Svc-* header that arrived is stored. */
function expectSameRequest(stored: { last_request_body: string | null; last_request_headers: Record<string, string> | null }, received: ReceivedRequest) {
  expect(stored.last_request_body).toBe(received.rawBody.toString("utf8"));
  const headers = stored.last_request_headers!;
  for (const [name, value] of Object.entries(headers)) expect(received.headers[name.toLowerCase()], name).toBe(value);
  const storedNames = new Set(Object.keys(headers).map((n) => n.toLowerCase()));
  for (const name of Object.keys(received.headers).filter(
    (n) => n.startsWith("svc-") || n === "content-type" || n === "user-agent" || n === "content-length",
  )) {
    expect(storedNames.has(name), name).toBe(true);
  }
}

beforeAll(async () => {
  db = await setupDb();
  const registryDb = createPgPool(db.url, { max: 1 });
  await loadRegistryIntoDb(
    registryDb,
    parseRegistry({
      registry_version: 1,
      network: "devnet",
      entities: [{ id: AGENT.id, label: "Logged agent", category: "agent", wallets: [AGENT.wallet] }],
    }),
    "registry:deliveryRequest.json",
  );
  await registryDb.end();
  receiver = await startReceiver();
  receiver.overrides.set("hook", (req: ReceivedRequest, res: ServerResponse) => {
    got.push(req);
    if (failing && req.body.type === "svc.event.v1") return void res.writeHead(500).end("not now");
    res.writeHead(204).end();
  });
  seeder = createEventSeeder(db.pool, [AGENT]);
  t = await startTestApp(db.url, { webhooks: { masterKey, production: false } });
  alice = await createTestUser(db.url);
  worker = await startTestWorker(db, { prefix, timeoutMs: 2_000, leaseMs: 5_000, metricsPort: -1 });
  await waitFor(async () => (await db.pool.query("SELECT 1 FROM event_cursors")).rowCount === 1, { what: "dispatch cursor" });
});

afterAll(async () => {
  await worker?.stop(1_000);
  await t?.close();
  await receiver?.close();
  await deletePrefixKeys(prefix);
  await db?.drop();
});

describe("delivery log: the request of the last attempt", () => {
  it("REST and GraphQL report exactly the body and headers the receiver got (failed attempt, then its retry, and a test event); never the secret", async () => {
    const created = await call("POST", "/api/webhooks", { callback_url: receiver.url("hook"), label: "logged", filters: { agent_id: AGENT.id } });
    expect(created.status).toBe(201);
    const secret = created.body.signing_secret as string;
    const id = created.body.id as string;
    expect((await call("POST", `/api/webhooks/${id}/verify`, { verify_token: created.body.verify_token })).body.status).toBe("active");

    await seeder.insert([{ from: AGENT.wallet, to: randomAddress(), amount: 1_234_567n }]);
    // the first attempt fails (500): the log shows what that attempt sent
    await waitFor(
      async () =>
        (await call("GET", `/api/webhooks/${id}/deliveries`)).body.items.some(
          (d: { type: string; attempts: number; last_http_status: number | null }) => d.type === "event" && d.last_http_status === 500,
        ),
      { what: "failed attempt recorded" },
    );
    const failed = (await call("GET", `/api/webhooks/${id}/deliveries`)).body.items.find((d: { type: string }) => d.type === "event");
    const firstAttempt = got.filter((r) => r.headers["svc-delivery"] === failed.id);
    expect(failed.status).toBe("retrying");
    expectSameRequest(failed, firstAttempt.at(-1)!);
    expect(JSON.parse(failed.last_request_body)).toMatchObject({ type: "svc.event.v1", id: failed.id, subscription_id: id, data: { amount_wei: "1234567" } });

    // the retry succeeds: the log now shows the retry's request (its own delivered_at and signature)
    failing = false;
    expect((await call("POST", `/api/webhooks/${id}/deliveries/${failed.id}/redeliver`)).status).toBe(202);
    await waitFor(
      async () =>
        (await call("GET", `/api/webhooks/${id}/deliveries`)).body.items.some(
          (d: { id: string; status: string }) => d.id === failed.id && d.status === "succeeded",
        ),
      { what: "retry succeeded" },
    );
    const done = (await call("GET", `/api/webhooks/${id}/deliveries`)).body.items.find((d: { id: string }) => d.id === failed.id);
    const attempts = got.filter((r) => r.headers["svc-delivery"] === failed.id);
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    expectSameRequest(done, attempts.at(-1)!);
    expect(done.last_request_headers["Svc-Signature"]).not.toBe(failed.last_request_headers["Svc-Signature"]);
    // the stored request verifies with the secret like the received one (the body is the signed bytes)
    expect(verifyWebhook(done.last_request_body, done.last_request_headers, secret, { toleranceSeconds: 300 })).toMatchObject({ deliveryId: failed.id });

    // a test event, through GraphQL
    const test = await call("POST", `/api/webhooks/${id}/test`);
    expect(test.status).toBe(202);
    const testId = test.body.delivery.id as string;
    expect(test.body.delivery).toMatchObject({ last_request_body: null, last_request_headers: null }); // not sent yet
    await waitFor(() => got.some((r) => r.headers["svc-delivery"] === testId), { what: "test event received" });
    await waitFor(
      async () =>
        (await call("GET", `/api/webhooks/${id}/deliveries`)).body.items.some(
          (d: { id: string; status: string }) => d.id === testId && d.status === "succeeded",
        ),
      { what: "test recorded" },
    );
    const page = await gql(`query($id: ID!) { webhookDeliveries(id: $id) { items { id lastRequestBody lastRequestHeaders { name value } } } }`, { id });
    expect(page.errors).toBeUndefined();
    const viaGraphql = page.data!.webhookDeliveries.items.find((d: { id: string }) => d.id === testId);
    const received = got.find((r) => r.headers["svc-delivery"] === testId)!;
    expect(viaGraphql.lastRequestBody).toBe(received.rawBody.toString("utf8"));
    for (const { name, value } of viaGraphql.lastRequestHeaders) expect(received.headers[name.toLowerCase()], name).toBe(value);
    expect(viaGraphql.lastRequestHeaders.map((h: { name: string }) => h.name)).toEqual(
      expect.arrayContaining(["Svc-Delivery", "Svc-Signature", "Svc-Subscription", "Content-Type"]),
    );

    // never the secret, anywhere in the log
    const all = JSON.stringify((await call("GET", `/api/webhooks/${id}/deliveries`)).body) + JSON.stringify(page);
    expect(all).not.toContain(secret);
    expect(all).not.toContain(secret.replace(/^whsec_/, ""));
  }, 60_000);
});
