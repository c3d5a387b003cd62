// Live ledger rows: the public `ledgerEvents` subscription over graphql-sse (/graphql/stream). The stream is
// resumed by us, not by the client library: after any break we subscribe again with afterId = the last id we
// showed, so the rows missed while disconnected are replayed first (the API guarantees no gap, no duplicate).
import { getBackoffDelay } from "@agent-ledger/core/getBackoffDelay";
import { createClient } from "graphql-sse";
import { ROW_FIELDS, type Row } from "./api.ts";

export type LiveState = "connecting" | "live" | "reconnecting" | "off";

export interface LiveOptions {
  /** Resume after this id (the newest row the page already shows); null = live from now. */
  afterId: string | null;
  agentId?: string;
  onRow(row: Row): void;
  onState(state: LiveState, detail?: string): void;
}

const QUERY = `subscription Live($afterId: ID, $agentId: String) { ledgerEvents(afterId: $afterId, agentId: $agentId) { ${ROW_FIELDS} } }`;

let client: ReturnType<typeof createClient> | undefined;
const sseClient = () => (client ??= createClient({ url: `${location.origin}/graphql/stream`, retryAttempts: 0 }));

/** Starts the subscription; returns stop(). Retries forever (1 s, 2 s, … 5 s) unless the feed is switched off. */
export function subscribeLive(options: LiveOptions): () => void {
  let lastId = options.afterId;
  let stopped = false;
  let attempt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let dispose: (() => void) | undefined;

  const connect = () => {
    if (stopped) return;
    options.onState(attempt === 0 ? "connecting" : "reconnecting");
    let failed = false;
    const retry = (detail?: string) => {
      if (failed || stopped) return;
      failed = true;
      dispose?.();
      attempt++;
      options.onState("reconnecting", detail);
      timer = setTimeout(connect, getBackoffDelay(attempt, { baseMs: 1000, maxMs: 5000, random: Math.random() }));
    };
    dispose = sseClient().subscribe<{ ledgerEvents: Row }>(
      { query: QUERY, variables: { afterId: lastId, agentId: options.agentId ?? null } },
      {
        next(result) {
          if (result.errors?.length) {
            const code = (result.errors[0] as { extensions?: { code?: string } }).extensions?.code;
            if (code === "feed_disabled" || code === "not_found") {
              failed = true;
              options.onState("off", result.errors[0]!.message);
            } else retry(result.errors[0]!.message);
            return;
          }
          const row = result.data?.ledgerEvents;
          if (!row) return;
          attempt = 0;
          options.onState("live");
          if (lastId !== null && BigInt(row.id) <= BigInt(lastId)) return;
          lastId = row.id;
          options.onRow(row);
        },
        error(error) {
          const message = error instanceof Error ? error.message : String(error);
          const status = (error as { response?: Response }).response?.status;
          if (status === 404 || /disabled/i.test(message)) {
            failed = true;
            options.onState("off", "the live feed is switched off on this server");
          } else retry(message);
        },
        complete: () => retry("the stream ended"),
      },
      {
        connected: () => {
          attempt = 0;
          options.onState("live");
        },
      },
    );
  };
  connect();
  return () => {
    stopped = true;
    clearTimeout(timer);
    dispose?.();
  };
}
