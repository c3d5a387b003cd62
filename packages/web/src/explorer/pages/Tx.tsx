import { useStore } from "../../shared/store.ts";
import { useEffect, useState } from "preact/hooks";
import { apiRecoveries, gql, ROW_FIELDS, type Row } from "../api.ts";
import { ErrorNote, EventsTable, Loading, NotFound } from "../components.tsx";

/** `/tx/:hash` (the registry's explorer URL may point here): every ledger row of one transaction. */
export function TxPage({ hash }: { hash: string }) {
  const [rows, setRows] = useState<Row[] | null | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const recoveries = useStore(apiRecoveries);
  useEffect(() => {
    if (!/^0x[0-9a-fA-F]{64}$/.test(hash)) return setRows(null);
    gql<{ search: { events: { items: Row[] } } }>(`query($q: String!) { search(q: $q) { events(first: 100) { items { ${ROW_FIELDS} } } } }`, { q: hash }).then(
      (r) => setRows(r.search.events.items.filter((e) => e.txHash.toLowerCase() === hash.toLowerCase())),
      setError,
    );
  }, [hash, recoveries]);
  useEffect(() => {
    document.title = `Transaction ${hash.slice(0, 10)}… — Agent Ledger`;
  }, [hash]);
  if (rows === null || (rows && rows.length === 0)) return <NotFound what="The ledger has no row from this transaction." />;
  if (error && !rows) return <ErrorNote error={error} />;
  if (!rows) return <Loading what="the transaction" />;
  return (
    <div data-page="tx">
      <div class="page-head">
        <div>
          <p class="crumbs">Transaction</p>
          <h1 class="mono tx-hash">{hash}</h1>
          <p class="lede">
            {rows.length} ledger {rows.length === 1 ? "row" : "rows"} from this transaction.
          </p>
        </div>
      </div>
      <section class="card">
        <EventsTable rows={rows} caption="Ledger rows of this transaction" />
      </section>
    </div>
  );
}
