// The explorer's only data source: the public GraphQL API on the same origin (POST /graphql), exactly as any other
// client calls it. A network failure or a 5xx marks the API as down (the layout shows a banner) until a call works.
import { ApiCallError, createApiClient, graphqlDataOf } from "@agent-ledger/client";
import { BOOT_GLOBAL, FIRST_ANSWER_ID, firstRequest, firstRequestTag, type BootRequests, type FirstRequest } from "./dashboardQuery.ts";
import { ROW_FIELDS } from "./rowFields.ts";
import { createStore } from "../shared/store.ts";

/** The inlined answer to `r` (the POST's JSON body, parsed), taken once: the element is removed. */
function takeInlineAnswer(r: FirstRequest): unknown {
  const el = document.getElementById(FIRST_ANSWER_ID);
  if (!el || el.dataset.request !== firstRequestTag(r)) return undefined;
  el.remove();
  try {
    return JSON.parse(el.textContent ?? "");
  } catch {
    return undefined;
  }
}

export const apiDown = createStore(false);
/** Counts recoveries of the API: pages list it among their effects' inputs, so they load again once it is back. */
export const apiRecoveries = createStore(0);

/** The explorer's client of the public GraphQL API, same origin (no credentials: everything it reads is public). */
const client = createApiClient({ baseUrl: "" });

// While the API is down, probe it every 3 s with the smallest GraphQL query; the first answer ends the outage.
let probe: ReturnType<typeof setInterval> | undefined;
apiDown.subscribe((down) => {
  if (down && !probe) {
    probe = setInterval(() => {
      const recovered = () => {
        clearInterval(probe);
        probe = undefined;
        apiDown.set(false);
        apiRecoveries.set(apiRecoveries.get() + 1);
      };
      client.graphql("{ __typename }", {}, { timeoutMs: 3000 }).then(recovered, (error: unknown) => {
        if (error instanceof ApiCallError && error.status > 0 && error.status < 500) recovered();
      });
    }, 3000);
  }
});

/** No answer (not a cancellation) or a 5xx marks the API as down; any other answer, as up. Rethrows. */
function noteFailure(error: unknown): never {
  if (error instanceof ApiCallError) apiDown.set(error.status === 0 || error.status >= 500);
  else if ((error as Error)?.name !== "AbortError") apiDown.set(true);
  throw error;
}

/** POST /graphql: the explorer's one way to ask the API (boot.ts sends the same request); errors throw ApiCallError. */
export function gql<T>(query: string, variables: Record<string, unknown> = {}, signal?: AbortSignal): Promise<T> {
  return client.graphql<T>(query, variables, { signal }).then((data) => (apiDown.set(false), data), noteFailure);
}

/** The data of a GraphQL response boot.ts got; a network failure or a 5xx marks the API as down, a GraphQL error throws. */
export async function answerOf<T>(response: Promise<Response>): Promise<T> {
  try {
    const res = await response;
    let body: unknown = null;
    try {
      body = await res.json();
    } catch {
      /* not JSON: graphqlDataOf names the status */
    }
    const data = graphqlDataOf<T>(res.status, body, res.headers);
    apiDown.set(false);
    return data;
  } catch (error) {
    return noteFailure(error);
  }
}

/** The data of a GraphQL response body; a GraphQL error throws. */
export function dataOf<T>(json: unknown): T {
  return graphqlDataOf<T>(200, json);
}

/**
 * The answer to this page load's first request when it is `key` (and, for the dashboard, window `w`): the one the server
 * inlined into the HTML — synchronously, so the first render already shows it (the document is parsed when the app's
 * modules run) — else the request boot.ts sent. Undefined: ask. Each is taken once; later loads ask again.
 */
export function takeFirstAnswer<T>(key: "dashboard" | "tokens", w?: string): { data: T } | { response: Promise<T> } | undefined {
  const g = globalThis as Record<string, unknown>;
  const boot = (g[BOOT_GLOBAL] ??= {}) as BootRequests; // (set: boot.ts, should it run later, sends nothing)
  const first = firstRequest(new URL(location.href));
  if (first.key !== key || (first.key === "dashboard" && first.w !== w)) return undefined;
  const booted = first.key === "dashboard" ? boot.dashboard?.response : boot.tokens;
  delete boot[first.key];
  const inline = takeInlineAnswer(first);
  if (inline !== undefined) {
    boot.inlineTaken = true;
    try {
      return { data: dataOf<T>(inline) };
    } catch {
      return undefined;
    }
  }
  return booted ? { response: answerOf<T>(booted) } : undefined;
}

export { ROW_FIELDS };

export interface Row {
  id: string;
  ts: string;
  kind: string;
  agentId: string;
  agentLabel: string;
  counterpartyAddress: string;
  counterpartyLabel: string;
  amountWei: string;
  tokenAddress: string;
  txHash: string;
  routedToLabel: string;
  routedFingerprint: string | null;
}
