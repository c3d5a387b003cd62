import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { apiDown, apiRecoveries, gql, ROW_FIELDS, type Row } from "./api.ts";
import { barWidth, change, count, KIND_LABEL, shortHex } from "../shared/format.ts";
import { formatTokenUnits } from "@agent-ledger/core/formatTokenUnits";
import { commonUnit, loadTokens, sumText, tokenAmountText, tokens, unitsSentence } from "../shared/tokens.ts";
import { navigate, useLocation } from "../shared/router.tsx";
import { useStore } from "../shared/store.ts";
import { Amount, Time } from "../shared/components.tsx";

/** One exact line per token (a read's `byToken` split), each in that token's decimals with its symbol. */
export function TokenLines({ items, label }: { items: { tokenAddress: string; amountSumWei: string }[]; label: string }) {
  const list = useStore(tokens);
  return (
    <ul class="figure-tokens" aria-label={label}>
      {items.map((t) => {
        const a = tokenAmountText(t.amountSumWei, t.tokenAddress, list);
        return (
          <li key={t.tokenAddress} data-token={t.tokenAddress}>
            <span class="tok-amount">{a.value}</span> <span class="muted">{a.unit}</span>
          </li>
        );
      })}
    </ul>
  );
}

/** One token's part of a sum: a read's `byToken` entry (amount in that token's raw units). */
export interface TokenPart {
  tokenAddress: string;
  amountSumWei: string;
}

/**
 * A sum in a table cell. Split by token (methodology v0.2, `byToken` not empty): one exact line per token, each in its
 * own decimals with its symbol. Without a split (v0.1): the sum (SumAmount).
 */
export function TokenSum({ total, byToken, bare }: { total: string; byToken?: TokenPart[]; bare?: boolean }) {
  const list = useStore(tokens);
  if (!byToken?.length) return BigInt(total) === 0n ? <span class="num">0</span> : <SumAmount units={total} />;
  return (
    <span class="token-sum">
      {byToken.map((t) => {
        const a = tokenAmountText(t.amountSumWei, t.tokenAddress, list);
        return (
          <span class="num" data-token={t.tokenAddress}>
            {a.value}
            {bare ? null : <span class="unit"> {a.unit}</span>}
          </span>
        );
      })}
    </span>
  );
}

/**
 * The one token of a column whose cells are all split by token, or null (several tokens, or no split). A table then
 * names that token's unit once in its header and writes the cells `bare`.
 */
export function useSoleTokenUnit(cells: (TokenPart[] | undefined)[]): string | null {
  const list = useStore(tokens);
  const addresses = new Set(cells.flatMap((c) => (c ?? []).map((t) => t.tokenAddress.toLowerCase())));
  if (addresses.size !== 1 || cells.some((c) => (c?.length ?? 0) > 1)) return null; // (an empty cell: nothing in the window)
  const [address] = addresses;
  return tokenAmountText("0", address!, list).unit;
}

/**
 * A volume card. Split by token (`byToken`, v0.2): one token → its amount with its symbol; several → a total only when
 * they share decimals and currency (two USD tokens of 6 decimals; else "N tokens") and one exact line per token below.
 * No split (v0.1): the sum in the common unit (SumAmount's rule). `prev`: the previous window's sum (a change is shown
 * only where a sum is); `hint`: the window compared with, or (no `prev`) what the figure covers.
 */
export function VolumeFigure({
  label,
  name,
  total,
  byToken,
  prev,
  hint,
}: {
  label: string;
  name: string;
  total: string;
  byToken: TokenPart[];
  prev?: string | null;
  hint?: string;
}) {
  const list = useStore(tokens);
  if (byToken.length === 0) {
    const unit = commonUnit(list);
    if (!unit) return <Figure label={label} name={name} value="—" cur={total} prev={undefined} hint="tokens of different decimals: not added up" />;
    return (
      <Figure
        label={label}
        name={name}
        value={formatTokenUnits(total, { decimals: unit.decimals, group: true })}
        unit={unit.unit}
        cur={total}
        prev={prev}
        hint={hint}
      />
    );
  }
  if (byToken.length === 1) {
    const a = tokenAmountText(byToken[0]!.amountSumWei, byToken[0]!.tokenAddress, list);
    return <Figure label={label} name={name} value={a.value} unit={a.unit} cur={total} prev={prev} hint={hint} />;
  }
  const info = byToken.map((t) => list?.get(t.tokenAddress.toLowerCase()));
  const first = info[0];
  const same = first !== undefined && info.every((t) => t !== undefined && t.decimals === first.decimals && t.currency === first.currency);
  return (
    <Figure
      label={label}
      name={name}
      value={same ? formatTokenUnits(total, { decimals: first.decimals, group: true }) : `${byToken.length} tokens`}
      unit={same ? `${first.currency} (${byToken.length} tokens)` : undefined}
      cur={total}
      prev={same ? prev : undefined}
      hint={hint}
    >
      <TokenLines items={byToken} label={`${label} per token`} />
    </Figure>
  );
}

/**
 * A sum over every token (reads without a per-token split): written only when the allowlisted tokens share their
 * decimals; otherwise a dash that says why (raw units of different tokens are never added up).
 */
export function SumAmount({ units }: { units: string }) {
  const text = sumText(units, useStore(tokens));
  return text === null ? (
    <span class="muted" title="The tokens have different decimals: their amounts are not added up">
      —
    </span>
  ) : (
    <span class="num">{text}</span>
  );
}

const NAV = [
  { href: "/", label: "Dashboard" },
  { href: "/services", label: "Services" },
  { href: "/agents", label: "Agents" },
  { href: "/wallet", label: "Wallet" },
  { href: "/webhooks", label: "Webhooks" },
];

export function Layout({ children }: { children: ComponentChildren }) {
  const down = useStore(apiDown);
  const list = useStore(tokens);
  const recoveries = useStore(apiRecoveries);
  // the allowlist failed to load while the API was down: ask again once it is back
  useEffect(() => {
    if (recoveries > 0) void loadTokens();
  }, [recoveries]);
  const url = useLocation();
  const section = "/" + (url.pathname.split("/")[1] ?? "");
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <div class="top-inner">
          <a class="brand" href="/" aria-label="Agent Ledger, dashboard">
            <span class="brand-mark" aria-hidden="true">
              ◆
            </span>{" "}
            Agent Ledger
          </a>
          <nav aria-label="Main">
            {NAV.map((n) => (
              <a href={n.href} aria-current={section === n.href ? "page" : undefined}>
                {n.label}
              </a>
            ))}
            <a href="/graphql" data-external="">
              GraphQL
            </a>
          </nav>
          <Search />
        </div>
      </header>
      {down ? (
        <div class="banner" role="alert">
          <strong>The ledger API is not answering.</strong> The figures below may be out of date; this page retries on its own.
        </div>
      ) : null}
      <main id="main" tabIndex={-1}>
        {children}
      </main>
      <footer class="foot">
        <p>
          A public ledger of AI agents and paid services on the Tempo payments chain. Everything here comes from the public API:{" "}
          <a href="/graphql" data-external="">
            GraphQL
          </a>{" "}
          (with live subscriptions) and{" "}
          <a href="/api/openapi.json" data-external="">
            REST
          </a>
          . <span data-units="">{unitsSentence(list)}</span>; times are in your time zone (hover for UTC).
        </p>
      </footer>
    </>
  );
}

interface SearchData {
  search: {
    q: string;
    entities: { items: { id: string; kind: string; label: string }[] };
    events: { items: Row[] };
    addresses: { items: { address: string; label: string; category: string | null }[] };
  };
}

const TX_HASH = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const FINGERPRINT = /^0x[0-9a-fA-F]{20}$/;

/** The search box of every page (shortcut "/"): an exact tx hash, address, event id or entity id jumps directly. */
function Search() {
  const input = useRef<HTMLInputElement>(null);
  const [q, setQ] = useState("");
  const [result, setResult] = useState<SearchData["search"] | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const url = useLocation();

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement;
      if (e.key === "/" && !/^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName) && !t.isContentEditable) {
        e.preventDefault();
        input.current?.focus();
      } else if (e.key === "Escape") setResult(null);
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);
  useEffect(() => setResult(null), [url.pathname]);

  async function submit(e: Event) {
    e.preventDefault();
    const text = q.trim();
    if (text.length < 2) return setError("Type at least 2 characters.");
    setBusy(true);
    setError(null);
    try {
      if (/^[1-9][0-9]{0,18}$/.test(text)) {
        const { event } = await gql<{ event: { id: string } | null }>("query($id: ID!) { event(id: $id) { id } }", { id: text });
        if (event) return go(`/events/${event.id}`);
      }
      const { search } = await gql<SearchData>(
        `query($q: String!) { search(q: $q) { q entities(first: 8) { items { id kind label } } events(first: 8) { items { ${ROW_FIELDS} } } addresses(first: 8) { items { address label category } } } }`,
        { q: text },
      );
      const lower = text.toLowerCase();
      const exactEntity = search.entities.items.find((x) => x.id.toLowerCase() === lower);
      if (exactEntity) return go(`/${exactEntity.kind === "service" ? "services" : "agents"}/${encodeURIComponent(exactEntity.id)}`);
      if (TX_HASH.test(text) && search.events.items.length > 0) return go(`/events/${search.events.items.at(-1)!.id}`);
      if (ADDRESS.test(text) && search.entities.items.length === 1) {
        const x = search.entities.items[0]!;
        return go(`/${x.kind === "service" ? "services" : "agents"}/${encodeURIComponent(x.id)}`);
      }
      if (ADDRESS.test(text) || FINGERPRINT.test(text)) {
        const { provider } = await gql<{ provider: { key: string } | null }>("query($k: String!) { provider(key: $k) { key } }", { k: text });
        if (provider && search.entities.items.length === 0) return go(`/providers/${provider.key}`);
      }
      setResult(search);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  }
  function go(href: string) {
    setResult(null);
    setQ("");
    navigate(href);
  }

  const empty = result && result.entities.items.length + result.events.items.length + result.addresses.items.length === 0;
  return (
    <div class="search">
      <form role="search" onSubmit={submit}>
        <label for="search-q" class="sr-only">
          Search the ledger
        </label>
        <input
          id="search-q"
          ref={input}
          type="search"
          placeholder="Search tx hash, address, agent…  ( / )"
          value={q}
          onInput={(e) => setQ((e.target as HTMLInputElement).value)}
          aria-describedby={error ? "search-error" : undefined}
          autocomplete="off"
          spellcheck={false}
        />
        <button type="submit" disabled={busy}>
          Search
        </button>
      </form>
      {error ? (
        <p id="search-error" class="search-error" role="alert">
          {error}
        </p>
      ) : null}
      {result ? (
        <section class="search-results" aria-label={`Search results for ${result.q}`}>
          <div class="search-head">
            <strong>Results for “{result.q}”</strong>
            <button type="button" class="link" onClick={() => setResult(null)}>
              Close
            </button>
          </div>
          {empty ? (
            <p class="muted">Nothing matches. Try a full transaction hash (0x + 64 hex), an address, an agent or service id, or part of a label.</p>
          ) : null}
          {result.entities.items.length ? (
            <>
              <h2>Services and agents</h2>
              <ul>
                {result.entities.items.map((x) => (
                  <li>
                    <a href={`/${x.kind === "service" ? "services" : "agents"}/${encodeURIComponent(x.id)}`}>{x.label}</a>{" "}
                    <span class="muted">
                      {x.kind} · {x.id}
                    </span>
                  </li>
                ))}
              </ul>
            </>
          ) : null}
          {result.events.items.length ? (
            <>
              <h2>Ledger rows</h2>
              <ul>
                {result.events.items.map((r) => (
                  <li>
                    <a href={`/events/${r.id}`}>#{r.id}</a> {r.agentLabel} {KIND_LABEL[r.kind] ?? r.kind} <Amount units={r.amountWei} token={r.tokenAddress} />{" "}
                    <span class="muted">
                      <Time iso={r.ts} />
                    </span>
                  </li>
                ))}
              </ul>
            </>
          ) : null}
          {result.addresses.items.length ? (
            <>
              <h2>Labelled addresses</h2>
              <ul>
                {result.addresses.items.map((a) => (
                  <li>
                    <span class="mono">{shortHex(a.address)}</span> {a.label} {a.category ? <span class="muted">({a.category})</span> : null}
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </section>
      ) : null}
    </div>
  );
}

export function Figure({
  label,
  value,
  cur,
  prev,
  hint,
  name,
  unit,
  children,
}: {
  label: string;
  value: string;
  cur: string | number;
  prev: string | number | null | undefined;
  hint?: string;
  name?: string;
  unit?: string;
  children?: ComponentChildren;
}) {
  const c = prev === null || prev === undefined ? null : change(cur, prev);
  return (
    <div class="figure">
      <div class="figure-label">{label}</div>
      <div class="figure-line">
        <span class={`figure-value${value.length > 13 ? " long" : ""}`} data-figure={name ?? label}>
          {value}
        </span>
        {unit ? (
          <span class="figure-unit" data-figure-unit={name ?? label}>
            {unit}
          </span>
        ) : null}
      </div>
      {children}
      {c ? (
        <div class={`figure-change ${c.dir}`}>
          <span aria-hidden="true">{c.dir === "up" ? "▲" : c.dir === "down" ? "▼" : "■"}</span> {c.text}{" "}
          <span class="muted">vs previous {hint ?? "window"}</span>
        </div>
      ) : (
        <div class="figure-change flat">
          <span class="muted">{hint ?? "all time"}</span>
        </div>
      )}
    </div>
  );
}

export interface RankedRow {
  href: string;
  name: string;
  sub?: string;
  txCount: number;
  amountSumWei: string;
  /** The row's volume per token (v0.2); shown instead of the sum when present. */
  byToken?: TokenPart[];
}

/** A ranking with inline bars (bar = share of the largest amount). */
export function TopTable({ title, rows, empty }: { title: string; rows: RankedRow[]; empty: string }) {
  const unit = commonUnit(useStore(tokens));
  // volume per token (v0.2): each cell names its tokens, so the header names no unit
  const split = rows.some((r) => r.byToken?.length);
  const sole = useSoleTokenUnit(rows.map((r) => r.byToken));
  // bars: share of the largest amount; of the largest count when amounts of different tokens cannot be added
  const size = (r: RankedRow) => (unit ? BigInt(r.amountSumWei) : BigInt(r.txCount));
  const max = rows.reduce((m, r) => (size(r) > m ? size(r) : m), 0n);
  return (
    <section class="card top-table">
      <h2>{title}</h2>
      {rows.length === 0 ? (
        <p class="empty">{empty}</p>
      ) : (
        // split by token: each amount keeps its digits on one line (the name column gives way); a table wider than a
        // narrow card scrolls inside it rather than widen the page
        <div class={split ? "table-wrap" : undefined}>
          <table class={split ? "split" : undefined}>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col" class="r">
                  Payments
                </th>
                <th scope="col" class="r">
                  Volume
                  {sole ? (
                    <span class="muted small th-unit"> {sole}</span>
                  ) : !split && unit && unit.unit !== "token units" ? (
                    <span class="muted small th-unit"> {unit.unit}</span>
                  ) : null}
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr>
                  <td>
                    <a href={r.href}>{r.name}</a>
                    {r.sub ? <div class="muted small">{r.sub}</div> : null}
                    <div class="bar" aria-hidden="true">
                      <span style={{ width: `${barWidth(size(r), max)}%` }} />
                    </div>
                  </td>
                  <td class="r num">{count(r.txCount)}</td>
                  <td class="r num">
                    <TokenSum total={r.amountSumWei} byToken={r.byToken} bare={sole !== null} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** Ledger rows, newest first. `fresh` ids are highlighted (they just arrived live). */
export function EventsTable({ rows, fresh, caption, showAgent = true }: { rows: Row[]; fresh?: Set<string>; caption: string; showAgent?: boolean }) {
  return (
    <div class="table-wrap">
      <table class="events">
        <caption class="sr-only">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            {showAgent ? <th scope="col">Agent / service</th> : null}
            <th scope="col">Kind</th>
            <th scope="col">Counterparty</th>
            <th scope="col" class="r">
              Amount
            </th>
            <th scope="col">Row</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.id} class={fresh?.has(r.id) ? "fresh" : undefined} data-event-id={r.id}>
              <td class="nowrap c-time">
                <Time iso={r.ts} />
              </td>
              {showAgent ? (
                <td class="c-agent">
                  <a href={`/${r.agentId.endsWith("-mpp") ? "services" : "agents"}/${encodeURIComponent(r.agentId)}`}>{r.agentLabel}</a>
                </td>
              ) : null}
              <td class="c-kind">
                <span class={`kind kind-${r.kind}`}>{KIND_LABEL[r.kind] ?? r.kind}</span>
              </td>
              <td class="c-cp">
                {r.counterpartyLabel || <span class="mono">{shortHex(r.counterpartyAddress)}</span>}
                {r.routedToLabel ? <div class="muted small">→ {r.routedToLabel}</div> : null}
              </td>
              <td class="r num nowrap c-amt">
                <Amount units={r.amountWei} token={r.tokenAddress} />
              </td>
              <td class="c-row">
                <a href={`/events/${r.id}`} aria-label={`Ledger row ${r.id}`}>
                  #{r.id}
                </a>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function Empty({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <div class="empty-state">
      <h2>{title}</h2>
      <p>{children}</p>
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status">
      Loading {what}…
    </p>
  );
}

export function ErrorNote({ error }: { error: unknown }) {
  const down = useStore(apiDown);
  if (down) return <Loading what="again once the API answers" />; // the banner says why
  return (
    <div class="error-note" role="alert">
      <strong>Could not load this page.</strong> {error instanceof Error ? error.message : String(error)}
    </div>
  );
}

export function NotFound({ what }: { what?: string }) {
  useEffect(() => {
    document.title = "Not found — Agent Ledger";
  }, []);
  return (
    <div class="not-found" data-page="not-found">
      <h1>Not found</h1>
      <p>{what ?? "There is no page at this address."} It may have been mistyped, or the ledger has no such entry (a fresh devnet starts empty).</p>
      <p>
        <a href="/">Go to the dashboard</a> · <a href="/agents">All agents</a> · <a href="/services">All services</a>
      </p>
    </div>
  );
}

export function LiveBadge({ state, paused, onToggle }: { state: string; paused: boolean; onToggle: () => void }) {
  const text = paused ? "Paused" : state === "live" ? "Live" : state === "off" ? "Live feed off" : state === "connecting" ? "Connecting…" : "Reconnecting…";
  return (
    <div class="live-badge">
      <span class={`dot ${paused ? "paused" : state}`} aria-hidden="true" />
      <span role="status" data-live-state={paused ? "paused" : state}>
        {text}
      </span>
      {state !== "off" ? (
        <button type="button" class="secondary small-btn" aria-pressed={paused} onClick={onToggle}>
          {paused ? "Resume" : "Pause"}
        </button>
      ) : null}
    </div>
  );
}
