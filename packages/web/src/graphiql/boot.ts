// Starts GraphiQL (the YogaGraphiQL global of @graphql-yoga/render-graphiql, loaded before this file) with a fetcher
// of our own: queries are POSTed to /graphql, subscriptions go to /graphql/stream over graphql-sse (the API's live
// feed), so `subscription { ledgerEvents { … } }` runs from the editor and streams its rows into the result pane.
import { createClient } from "graphql-sse";

declare const YogaGraphiQL: { renderYogaGraphiQL(root: Element, options: Record<string, unknown>): void };

interface FetcherParams {
  query: string;
  operationName?: string | null;
  variables?: Record<string, unknown>;
}

const sse = createClient({ url: `${location.origin}/graphql/stream`, retryAttempts: 0 });

/** Whether the operation that runs is a subscription (by name, else the document's first operation). */
export function isSubscription(query: string, operationName?: string | null): boolean {
  const text = query.replace(/#[^\n]*/g, "");
  const ops = [...text.matchAll(/(?:^|[}\s])(query|mutation|subscription)\s*([A-Za-z_][A-Za-z0-9_]*)?/g)];
  const op = operationName ? ops.find((m) => m[2] === operationName) : ops[0];
  return op?.[1] === "subscription";
}

function fetcher(params: FetcherParams) {
  if (isSubscription(params.query, params.operationName)) {
    return sse.iterate({ query: params.query, operationName: params.operationName ?? undefined, variables: params.variables ?? {} });
  }
  return fetch(`${location.origin}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(params),
  }).then((r) => r.json());
}

YogaGraphiQL.renderYogaGraphiQL(document.querySelector("#root")!, {
  fetcher,
  title: "Agent Ledger GraphQL",
  defaultQuery: `# The public, read-only ledger API. Run with ▶ (Ctrl-Enter). Try:
{
  dashboard(window: "24h") { txCount amountSumWei agentsActive providersDetected }
}

# Live rows (streams until you stop it):
# subscription { ledgerEvents { id agentId kind amountWei ts } }
`,
});
