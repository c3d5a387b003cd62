// The explorer's only data source: the public GraphQL API on the same origin (POST /graphql), exactly as any other
// client calls it. A network failure or a 5xx marks the API as down (the layout shows a banner) until a call works.
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

// While the API is down, probe it every 3 s with the smallest GraphQL query; the first answer ends the outage.
let probe: ReturnType<typeof setInterval> | undefined;
apiDown.subscribe((down) => {
  if (down && !probe) {
    probe = setInterval(() => {
      fetch("/graphql", { method: "POST", headers: { "content-type": "application/json", accept: "application/json" }, body: '{"query":"{ __typename }"}' }).then(
        (r) => {
          if (r.status < 500) {
            clearInterval(probe);
            probe = undefined;
            apiDown.set(false);
            apiRecoveries.set(apiRecoveries.get() + 1);
          }
        },
        () => {},
      );
    }, 3000);
  }
});

export class GraphqlError extends Error {
  constructor(message: string, readonly code: string | undefined) {
    super(message);
  }
}

/** POST /graphql: the explorer's one way to ask the API (boot.ts sends the same request). */
export function gql<T>(query: string, variables: Record<string, unknown> = {}, signal?: AbortSignal): Promise<T> {
  return answerOf<T>(
    fetch("/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ query, variables }),
      signal,
    }),
  );
}

/** The data of a GraphQL response; a network failure or a 5xx marks the API as down, a GraphQL error throws. */
export async function answerOf<T>(response: Promise<Response>): Promise<T> {
  let res: Response;
  try {
    res = await response;
  } catch (error) {
    if ((error as Error).name !== "AbortError") apiDown.set(true);
    throw error;
  }
  if (res.status >= 500) {
    apiDown.set(true);
    throw new GraphqlError(`the API answered ${res.status}`, "unavailable");
  }
  apiDown.set(false);
  return dataOf<T>(await res.json());
}

/** The data of a GraphQL response body; a GraphQL error throws. */
export function dataOf<T>(json: unknown): T {
  const body = json as { data?: T; errors?: { message: string; extensions?: { code?: string } }[] };
  if (body.errors?.length) throw new GraphqlError(body.errors[0]!.message, body.errors[0]!.extensions?.code);
  return body.data as T;
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
