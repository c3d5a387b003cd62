// Layout pieces every owner-console page uses (WalletPage, WebhooksPage).
import type { ComponentChildren } from "preact";

/** A console page's heading: its title, one line on what it is for, and its actions. */
export function PageHead({ title, lede, children }: { title: string; lede: string; children?: ComponentChildren }) {
  return (
    <div class="page-head">
      <div>
        <h1>{title}</h1>
        <p class="lede">{lede}</p>
      </div>
      {children}
    </div>
  );
}

/**
 * A card with one table: its heading (with `actions` beside it), a `note` under it, "Loading…" while `rows` is null,
 * `empty` when there is no row, else `table(rows)` in a scrolling wrapper; `after` closes the card.
 */
export function TableCard<T>({
  id,
  title,
  actions,
  note,
  rows,
  empty,
  table,
  after,
}: {
  id: string;
  title: ComponentChildren;
  actions?: ComponentChildren;
  note?: ComponentChildren;
  rows: T[] | null;
  empty: ComponentChildren;
  table: (rows: T[]) => ComponentChildren;
  after?: ComponentChildren;
}) {
  const heading = <h2 id={id}>{title}</h2>;
  return (
    <section class="card" aria-labelledby={id}>
      {actions ? (
        <div class="card-head">
          {heading}
          {actions}
        </div>
      ) : (
        heading
      )}
      {note}
      {rows === null ? <p class="muted">Loading…</p> : rows.length === 0 ? <p class="muted">{empty}</p> : <div class="table-wrap">{table(rows)}</div>}
      {after}
    </section>
  );
}
