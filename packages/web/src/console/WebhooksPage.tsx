// The webhooks console, /webhooks and /webhooks/:id (docs/webhooks.md): the signed-in owner's subscriptions through the
// same REST API the CLI uses (/api/webhooks…, cookie). Create (URL, label, filters with an agent picker and a minimum
// amount typed in token units and converted exactly to base units), the signing secret shown once with a copy button,
// the verification state as it changes; detail with pause / resume / rotate / delete, test event, recover since a
// time, and the delivery log with redeliver.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { formatTokenUnits } from "@agent-ledger/core/formatTokenUnits";
import { minimumAmountUnit } from "@agent-ledger/core/minimumAmountUnit";
import { parseTokenUnits } from "@agent-ledger/core/parseTokenUnits";
import { Time } from "../shared/components.tsx";
import { navigate } from "../shared/router.tsx";
import { useStore } from "../shared/store.ts";
import { loadTokens, tokens, type TokenInfo } from "../shared/tokens.ts";
import { ApiCallError, rest } from "./api.ts";
import { PageHead, TableCard } from "./parts.tsx";
import { describe, SignIn, StatusBadge, useOwner } from "./WalletPage.tsx";
import "./console.css";

interface Subscription {
  id: string;
  status: string;
  callback_url: string;
  label: string | null;
  filters: { agent_id: string; recipient_address?: string; routed_to_address?: string; min_amount_wei?: string; token_address?: string };
  consecutive_failures: number;
  status_reason: string | null;
  created_at: string;
  verify_token_expires_at: string;
  deliveries?: Record<string, number>;
}
interface Delivery {
  id: string;
  event_id: number | null;
  type: string;
  status: string;
  attempts: number;
  last_http_status: number | null;
  last_error: string | null;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  created_at: string;
  completed_at: string | null;
  /** What the last attempt sent (null before the first attempt; docs/webhooks.md § Delivery log). */
  last_request_body: string | null;
  last_request_headers: Record<string, string> | null;
}
interface Created extends Subscription {
  signing_secret: string;
  verify_token: string;
}

const hooksApi = {
  list: () => rest<{ items: Subscription[] } | Subscription[]>("GET", "/api/webhooks").then((r) => (Array.isArray(r) ? r : r.items)),
  get: (id: string) => rest<Subscription>("GET", `/api/webhooks/${encodeURIComponent(id)}`),
  create: (body: unknown) => rest<Created>("POST", "/api/webhooks", body),
  verify: (id: string, token: string) => rest<Subscription>("POST", `/api/webhooks/${encodeURIComponent(id)}/verify`, { verify_token: token }),
  action: (id: string, what: "pause" | "resume" | "rotate-secret" | "test") =>
    rest<Record<string, unknown>>("POST", `/api/webhooks/${encodeURIComponent(id)}/${what}`, {}),
  recover: (id: string, since: string) =>
    rest<{ matched_events: number; deliveries_created: number }>("POST", `/api/webhooks/${encodeURIComponent(id)}/recover`, { since }),
  remove: (id: string) => rest<unknown>("DELETE", `/api/webhooks/${encodeURIComponent(id)}`),
  deliveries: (id: string, cursor: string | null) =>
    rest<{ items: Delivery[]; next_cursor: string | null }>(
      "GET",
      `/api/webhooks/${encodeURIComponent(id)}/deliveries?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    ),
  redeliver: (id: string, deliveryId: string) =>
    rest<unknown>("POST", `/api/webhooks/${encodeURIComponent(id)}/deliveries/${encodeURIComponent(deliveryId)}/redeliver`, {}),
  /** The agent picker: the public list of watched agents (a bare array), active ones only (the API refuses inactive ones). */
  agents: () =>
    rest<{ id: string; label: string; active?: boolean }[]>("GET", "/api/agents").then(
      (r) => r.filter((a) => a.active !== false),
      () => [],
    ),
};

function Head({ children }: { children?: preact.ComponentChildren }) {
  return (
    <PageHead title="Webhooks" lede="Signed HTTP notifications of new ledger rows for one agent, with retries and a delivery log.">
      {children}
    </PageHead>
  );
}

function Secret({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="secret">
      <span>{label}:</span>{" "}
      <code class="mono" data-console="secret">
        {value}
      </code>
      <button
        type="button"
        class="secondary small-btn"
        onClick={() =>
          navigator.clipboard?.writeText(value).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        Copy
      </button>
      <span role="status" class="small muted">
        {copied ? "Copied" : ""}
      </span>
    </div>
  );
}

/** The decimals a minimum amount is typed in and written in (docs/webhooks.md § console: core minimumAmountUnit), once the allowlist is loaded. */
function minimumUnit(list: ReadonlyMap<string, TokenInfo> | null, token: string): { decimals: number; unit: string } | { refused: string } {
  if (list === null) return { refused: "The token list is not loaded yet: try again in a moment." };
  return minimumAmountUnit([...list.values()], token || undefined);
}

function CreateForm({ onCreated }: { onCreated: (c: Created) => void }) {
  const [agents, setAgents] = useState<{ id: string; label: string }[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [token, setToken] = useState("");
  const list = useStore(tokens);
  useEffect(() => void hooksApi.agents().then(setAgents), []);
  useEffect(() => void loadTokens(), []);
  const unit = minimumUnit(list, token);
  const submit = async (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.target as HTMLFormElement);
    const filters: Record<string, string> = { agent_id: String(f.get("agent_id") ?? "") };
    if (token) filters.token_address = token;
    const min = String(f.get("min_amount") ?? "").trim();
    try {
      if (min) {
        if ("refused" in unit) {
          if (list === null) void loadTokens(); // it failed: ask again
          throw new Error(unit.refused);
        }
        filters.min_amount_wei = parseTokenUnits(min, unit.decimals).toString();
      }
    } catch (err) {
      return setError((err as Error).message);
    }
    const recipient = String(f.get("recipient_address") ?? "")
      .trim()
      .toLowerCase();
    if (recipient) filters.recipient_address = recipient;
    setBusy(true);
    setError(null);
    try {
      onCreated(
        await hooksApi.create({ callback_url: String(f.get("callback_url") ?? "").trim(), label: String(f.get("label") ?? "").trim() || undefined, filters }),
      );
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  };
  const minimumHint =
    "refused" in unit
      ? list === null
        ? "loading the token list…"
        : "choose a token first"
      : token
        ? `in ${unit.unit} (${unit.decimals} decimals), e.g. 1.25 — converted exactly to base units`
        : list && list.size > 0
          ? `any token, ${unit.decimals} decimals, e.g. 1.25 — converted exactly to base units`
          : "token units (6 decimals), e.g. 1.25 — converted exactly to base units";
  return (
    <form class="card form-grid" onSubmit={submit} aria-labelledby="create-title" data-console="create-webhook">
      <h2 id="create-title">New webhook</h2>
      <label>
        Endpoint URL <input name="callback_url" type="url" required placeholder="https://example.com/hooks/agent-ledger" />
      </label>
      <label>
        Label <span class="hint">optional, for you</span>
        <input name="label" maxLength={100} />
      </label>
      <label>
        Agent
        <select name="agent_id" required>
          {agents.length === 0 ? (
            <option value="">No agents listed</option>
          ) : (
            agents.map((a) => (
              <option value={a.id}>
                {a.label} ({a.id})
              </option>
            ))
          )}
        </select>
      </label>
      {list && list.size > 0 ? (
        // the registry's token allowlist (GraphQL `tokens`, as the explorer loads it); none on a v0.1 ledger
        <label>
          Token <span class="hint">optional; sets the token filter and the minimum's decimals</span>
          <select name="token_address" value={token} onChange={(e) => setToken((e.target as HTMLSelectElement).value)}>
            <option value="">Any token</option>
            {[...list.values()].map((t) => (
              <option value={t.address.toLowerCase()}>
                {t.symbol} ({t.decimals} decimals)
              </option>
            ))}
          </select>
        </label>
      ) : null}
      <label>
        Minimum amount{" "}
        <span class="hint" data-console="min-hint">
          {minimumHint}
        </span>
        <input name="min_amount" inputMode="decimal" />
      </label>
      <label>
        Recipient address <span class="hint">optional</span>
        <input name="recipient_address" pattern="0x[0-9a-fA-F]{40}" />
      </label>
      {error ? (
        <p class="console-error" role="alert">
          {error}
        </p>
      ) : null}
      <div>
        <button type="submit" disabled={busy}>
          {busy ? "Creating…" : "Create webhook"}
        </button>
      </div>
    </form>
  );
}

export function WebhooksPage() {
  const owner = useOwner();
  const [items, setItems] = useState<Subscription[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<Created | null>(null);
  const list = useStore(tokens);
  const reload = useCallback(() => void hooksApi.list().then(setItems, (e) => setError(describe(e))), []);
  useEffect(() => {
    document.title = "Webhooks — Agent Ledger";
    if (owner.me) {
      reload();
      void loadTokens();
    }
  }, [owner.me, reload]);
  if (owner.me === undefined) return <p class="muted">Loading…</p>;
  if (owner.me === null)
    return (
      <>
        <Head />
        <SignIn what="Manage your webhooks." {...owner} />
      </>
    );
  return (
    <>
      <Head>
        {creating ? null : (
          <button
            type="button"
            onClick={() => {
              setCreating(true);
              setCreated(null);
            }}
          >
            New webhook
          </button>
        )}
      </Head>
      {creating ? (
        <CreateForm
          onCreated={(c) => {
            setCreated(c);
            setCreating(false);
            reload();
          }}
        />
      ) : null}
      {created ? <CreatedPanel created={created} onUpdate={(h) => setItems((xs) => xs && xs.map((x) => (x.id === h.id ? h : x)))} /> : null}
      {error ? (
        <p class="console-error" role="alert">
          {error}
        </p>
      ) : null}
      <TableCard
        id="hooks-title"
        title="Your webhooks"
        rows={items}
        empty="No webhook yet."
        table={(items) => (
          <table class="stack" data-console="webhooks">
            <thead>
              <tr>
                <th scope="col">Webhook</th>
                <th scope="col">Status</th>
                <th scope="col">Agent</th>
                <th scope="col">Filters</th>
                <th scope="col" class="r">
                  Failures
                </th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {items.map((h) => (
                <tr data-webhook={h.id} data-status={h.status}>
                  <td data-label="Webhook" class="stack-main">
                    <a href={`/webhooks/${h.id}`}>{h.label || h.callback_url}</a>
                    <span class="small muted block">{h.callback_url}</span>
                  </td>
                  <td data-label="Status">
                    <span class={`badge badge-${h.status}`}>{h.status.replace(/_/g, " ")}</span>
                  </td>
                  <td data-label="Agent">{h.filters.agent_id}</td>
                  <td data-label="Filters" class="small">
                    {filterText(h, list)}
                  </td>
                  <td data-label="Failures" class="r num">
                    {h.consecutive_failures}
                  </td>
                  <td data-label="Created" class="nowrap">
                    <Time iso={h.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      />
    </>
  );
}

/** The filters in words; the minimum in its token's decimals with its symbol (6-decimal token units without an allowlist). */
function filterText(h: Subscription, list: ReadonlyMap<string, TokenInfo> | null): string {
  const parts: string[] = [];
  const token = h.filters.token_address;
  if (token) parts.push(`${list?.get(token)?.symbol ?? `token ${token}`} only`);
  if (h.filters.min_amount_wei) {
    // in the decimals it was typed in (the create form's rule); raw units until the allowlist is known
    const u = minimumUnit(list, token ?? "");
    parts.push(
      "refused" in u
        ? `≥ ${h.filters.min_amount_wei} raw units`
        : `≥ ${formatTokenUnits(h.filters.min_amount_wei, { decimals: u.decimals, group: true })} ${u.unit}`,
    );
  }
  if (h.filters.recipient_address) parts.push(`to ${h.filters.recipient_address}`);
  if (h.filters.routed_to_address) parts.push(`routed to ${h.filters.routed_to_address}`);
  return parts.join(", ") || "every row";
}

/**
 * The "Webhook created" panel: the secret (shown once, with Copy) and the verification state as it changes: GET
 * /api/webhooks/:id every 2 s while it is pending_verify (each answer also updates the list row through `onUpdate`);
 * polling stops once it is settled (active, or any other state), expired, its ping has given up, or the panel goes away.
 */
function CreatedPanel({ created, onUpdate }: { created: Created; onUpdate: (h: Subscription) => void }) {
  const [hook, setHook] = useState<Subscription | null>(null);
  const [gone, setGone] = useState(false);
  const update = useRef(onUpdate);
  update.current = onUpdate;
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const poll = () => {
      hooksApi.get(created.id).then(
        (h) => {
          if (stopped) return;
          setHook(h);
          update.current(h);
          if (!settled(h)) timer = setTimeout(poll, 2000);
        },
        (e) => {
          if (stopped) return;
          if (e instanceof ApiCallError && e.status === 404) return setGone(true);
          timer = setTimeout(poll, 2000); // a network blip: ask again
        },
      );
    };
    timer = setTimeout(poll, 2000);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [created.id]);
  const state = gone ? "gone" : verifyState(hook ?? { ...created, consecutive_failures: 0, status_reason: null });
  const text: Record<typeof state, preact.ComponentChildren> = {
    waiting: (
      <>
        Waiting for verification: your endpoint received a ping with a <code>verify_token</code>; it becomes active once the endpoint echoes it (POST{" "}
        <code>/api/webhooks/{created.id}/verify</code>).
      </>
    ),
    retrying: (
      <>
        Verification failed so far: the ping did not get a 2xx from your endpoint. It is retried (30 s, then 2 min, 10 min…): check that the URL answers 2xx and
        echoes the token.
      </>
    ),
    failed: <>Verification failed: the ping gave up. Delete this webhook and create it again once your endpoint answers.</>,
    expired: <>Verification expired: the token was not echoed within 24 hours. Delete this webhook and create it again.</>,
    active: <>Verified: your endpoint echoed the token. Matching ledger rows are delivered from now on.</>,
    other: <>Now {hook?.status.replace(/_/g, " ")}.</>,
    gone: <>This webhook no longer exists.</>,
  };
  return (
    <section class="card" aria-labelledby="created-title" data-console="created">
      <h2 id="created-title">Webhook created</h2>
      <p>Keep the signing secret now: it is shown only once. Your endpoint verifies every delivery with it.</p>
      <Secret label="Signing secret" value={created.signing_secret} />
      <p role="status" aria-live="polite" data-console="verify-state" data-state={state} class={`verify-${state}`}>
        <span class={`badge badge-${hook?.status ?? created.status}`}>
          {state === "waiting" || state === "retrying" ? "pending verify" : state === "other" ? hook?.status.replace(/_/g, " ") : state}
        </span>{" "}
        {text[state]}
      </p>
      <p>
        <a href={`/webhooks/${created.id}`}>Open the webhook</a> for its actions and delivery log.
      </p>
    </section>
  );
}

type VerifyState = "waiting" | "retrying" | "failed" | "expired" | "active" | "other";
function verifyState(h: Subscription): VerifyState {
  if (h.status === "active") return "active";
  if (h.status !== "pending_verify") return "other";
  if (Date.parse(h.verify_token_expires_at) <= Date.now()) return "expired";
  if ((h.deliveries?.dead ?? 0) > 0) return "failed";
  if ((h.deliveries?.retrying ?? 0) > 0) return "retrying";
  return "waiting";
}
const settled = (h: Subscription) => !["waiting", "retrying"].includes(verifyState(h));

export function WebhookPage({ id }: { id: string }) {
  const owner = useOwner();
  const [hook, setHook] = useState<Subscription | null | undefined>(undefined);
  const [deliveries, setDeliveries] = useState<Delivery[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [since, setSince] = useState("");
  const tokenList = useStore(tokens);
  // Whether older pages were loaded: then the cursor is the oldest loaded page's, and a refresh keeps those rows.
  const olderLoaded = useRef(false);
  const reload = useCallback(() => {
    hooksApi.get(id).then(setHook, (e) => (e instanceof ApiCallError && e.status === 404 ? setHook(null) : setMessage(describe(e))));
    // The first page again, merged by id with what is shown: newer rows come in at the top, rows already shown are
    // updated in place, and older rows the user loaded stay (the refresh replaced them with the first page once).
    hooksApi.deliveries(id, null).then(
      (r) => {
        setDeliveries((shown) => mergeDeliveries(r.items, shown));
        if (!olderLoaded.current) setCursor(r.next_cursor);
      },
      () => undefined,
    );
  }, [id]);
  const loadOlder = (from: string) =>
    void hooksApi.deliveries(id, from).then(
      (r) => {
        olderLoaded.current = true;
        setDeliveries((shown) => mergeDeliveries(shown, r.items));
        setCursor(r.next_cursor);
      },
      (e) => setMessage(describe(e)),
    );
  useEffect(() => {
    document.title = "Webhook — Agent Ledger";
    if (!owner.me) return;
    void loadTokens();
    reload();
    // the status and the log change on their own (verification, deliveries): follow them
    const t = setInterval(reload, 3000);
    return () => clearInterval(t);
  }, [owner.me, reload]);
  const act = async (what: "pause" | "resume" | "rotate-secret" | "test") => {
    setMessage(null);
    try {
      const r = await hooksApi.action(id, what);
      if (what === "rotate-secret") setSecret(String(r.signing_secret));
      setMessage(what === "test" ? "Test event queued." : what === "rotate-secret" ? "New signing secret: the old one no longer signs." : `Webhook ${what}d.`);
      reload();
    } catch (e) {
      setMessage(describe(e));
    }
  };
  if (owner.me === undefined) return <p class="muted">Loading…</p>;
  if (owner.me === null) return <SignIn what="Sign in to manage this webhook." {...owner} />;
  if (hook === null)
    return (
      <section class="card">
        <h1>Webhook not found</h1>
        <p>
          <a href="/webhooks">Back to your webhooks</a>
        </p>
      </section>
    );
  if (!hook) return <p class="muted">Loading…</p>;
  return (
    <>
      <p class="crumbs">
        <a href="/webhooks">Webhooks</a> / detail
      </p>
      <div class="page-head">
        <div>
          <h1>
            {hook.label || "Webhook"}{" "}
            <span class={`badge badge-${hook.status}`} data-console="webhook-status">
              {hook.status.replace(/_/g, " ")}
            </span>
          </h1>
          <p class="lede mono small">{hook.callback_url}</p>
        </div>
      </div>
      <section class="card" aria-labelledby="actions-title">
        <h2 id="actions-title">Actions</h2>
        <div class="actions">
          {hook.status === "active" ? (
            <button type="button" class="secondary" onClick={() => act("pause")}>
              Pause
            </button>
          ) : null}
          {hook.status === "paused" || hook.status === "disabled_by_failures" ? (
            <button type="button" class="secondary" onClick={() => act("resume")}>
              Resume
            </button>
          ) : null}
          <button type="button" class="secondary" onClick={() => act("rotate-secret")}>
            Rotate secret
          </button>
          {hook.status === "active" ? (
            <button type="button" class="secondary" onClick={() => act("test")}>
              Send test event
            </button>
          ) : null}
          <button
            type="button"
            class="danger"
            onClick={async () => {
              if (!window.confirm("Delete this webhook? Deliveries stop for good.")) return;
              try {
                await hooksApi.remove(id);
                navigate("/webhooks");
              } catch (e) {
                setMessage(describe(e));
              }
            }}
          >
            Delete
          </button>
        </div>
        {hook.status === "active" ? (
          <form
            class="actions"
            onSubmit={async (e) => {
              e.preventDefault();
              try {
                const r = await hooksApi.recover(id, new Date(since).toISOString());
                setMessage(`Recovery: ${r.matched_events} matching rows, ${r.deliveries_created} new deliveries.`);
                reload();
              } catch (err) {
                setMessage(describe(err));
              }
            }}
          >
            <label class="inline-field">
              Recover missed events since <input type="datetime-local" required value={since} onInput={(e) => setSince((e.target as HTMLInputElement).value)} />
            </label>
            <button type="submit" class="secondary">
              Recover
            </button>
          </form>
        ) : null}
        {secret ? <Secret label="New signing secret (shown once)" value={secret} /> : null}
        <p role="status" data-console="message">
          {message ?? ""}
        </p>
        <dl class="facts console-facts">
          <div>
            <dt>Agent</dt>
            <dd>{hook.filters.agent_id}</dd>
          </div>
          <div>
            <dt>Filters</dt>
            <dd>{filterText(hook, tokenList)}</dd>
          </div>
          <div>
            <dt>Consecutive failures</dt>
            <dd>{hook.consecutive_failures}</dd>
          </div>
          <div>
            <dt>Created</dt>
            <dd>
              <Time iso={hook.created_at} />
            </dd>
          </div>
        </dl>
        {hook.status_reason ? <p class="muted">Reason: {hook.status_reason}</p> : null}
      </section>
      <TableCard
        id="log-title"
        title="Delivery log"
        rows={deliveries}
        empty="No delivery yet."
        table={(deliveries) => (
          <table class="stack" data-console="deliveries">
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Type</th>
                <th scope="col">Status</th>
                <th scope="col" class="r">
                  Attempts
                </th>
                <th scope="col">Last HTTP</th>
                <th scope="col">Next attempt</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {deliveries.flatMap((d) => [
                <tr key={d.id} data-delivery={d.id} data-status={d.status}>
                  <td data-label="Created" class="nowrap">
                    <Time iso={d.created_at} />
                  </td>
                  <td data-label="Type" class="delivery-type">
                    <span>
                      {d.type}
                      {d.event_id !== null ? (
                        <>
                          {" "}
                          · <a href={`/events/${d.event_id}`}>row {d.event_id}</a>
                        </>
                      ) : null}
                    </span>
                  </td>
                  <td data-label="Status">
                    <StatusBadge status={d.status} />
                    {d.last_error ? <span class="small muted block">{d.last_error}</span> : null}
                  </td>
                  <td data-label="Attempts" class="r num">
                    {d.attempts}
                  </td>
                  <td data-label="Last HTTP">{d.last_http_status ?? "—"}</td>
                  <td data-label="Next attempt">{d.next_attempt_at ? <Time iso={d.next_attempt_at} /> : "—"}</td>
                  <td data-label="Actions">
                    {d.status === "retrying" || d.status === "dead" ? (
                      <button
                        type="button"
                        class="secondary small-btn"
                        onClick={async () => {
                          try {
                            await hooksApi.redeliver(id, d.id);
                            setMessage("Redelivery queued.");
                            reload();
                          } catch (e) {
                            setMessage(describe(e));
                          }
                        }}
                      >
                        Redeliver
                      </button>
                    ) : null}
                  </td>
                </tr>,
                <tr key={`${d.id}:request`} class="delivery-request" data-request-of={d.id}>
                  <td colSpan={7}>
                    {d.last_request_body !== null || d.last_request_headers !== null ? (
                      // <details>/<summary>: a native disclosure, reached with Tab and opened with Enter or Space
                      <details class="delivery">
                        <summary>
                          Request of the last attempt
                          {d.last_attempt_at ? (
                            <>
                              {" "}
                              (<Time iso={d.last_attempt_at} />)
                            </>
                          ) : null}
                        </summary>
                        <h3 class="h3">Headers</h3>
                        <pre class="body" data-console="request-headers">
                          {Object.entries(d.last_request_headers ?? {})
                            .sort(([a], [b]) => a.localeCompare(b))
                            .map(([k, v]) => `${k}: ${v}`)
                            .join("\n")}
                        </pre>
                        <h3 class="h3">Body (exactly as sent)</h3>
                        <pre class="body" data-console="request-body">
                          {d.last_request_body}
                        </pre>
                      </details>
                    ) : (
                      <span class="small muted">Not sent yet: the body is built at the first attempt.</span>
                    )}
                  </td>
                </tr>,
              ])}
            </tbody>
          </table>
        )}
        after={
          cursor ? (
            <button type="button" class="secondary" onClick={() => loadOlder(cursor)}>
              Load older deliveries
            </button>
          ) : null
        }
      />
    </>
  );
}

/**
 * `newer` then the rows of `older` it does not hold, by id (both newest first): a refreshed first page over the rows
 * shown (rows pushed out of the first page by newer ones, and older pages, stay), or the rows shown over an older page.
 */
function mergeDeliveries(newer: Delivery[], older: Delivery[]): Delivery[] {
  const ids = new Set(newer.map((d) => d.id));
  return [...newer, ...older.filter((d) => !ids.has(d.id))];
}
