import SchemaBuilder from "@pothos/core";
import DataloaderPlugin from "@pothos/plugin-dataloader";
import type { FeedSource } from "../feed/feedCore.ts";
import type { Principal } from "../auth/authenticate.ts";
import type { Services } from "../services/createServices.ts";
import type { WebhookService } from "../webhooks/createWebhookService.ts";
import type { WalletContext } from "../wallet/context.ts";
import type { OwnerUser } from "../wallet/owner.ts";

/** Per-request GraphQL context: the shared read services (loaders are cached per context object). */
export interface GraphqlContext {
  services: Services;
  /** Webhook subscriptions (mutations and the caller's own subscriptions); absent on the stream endpoint. */
  webhooks?: WebhookService;
  /** Authenticates the request (bearer or passkey cookie), lazily: only fields that need a caller call it. */
  principal?: (options?: { optional?: boolean }) => Promise<Principal | null>;
  /** The signed-in wallet owner (passkey session cookie only; 401 `unauthorized` otherwise), once per request. */
  walletOwner?: () => Promise<{ wallet: WalletContext; user: OwnerUser }>;
  /** The live feed, on the graphql-sse endpoint (/graphql/stream) only. */
  feed?: FeedSource;
  /**
   * Set for an execution whose answer goes into the GraphQL response cache: the dashboard is computed now rather than
   * taken from the services' dashboard cache, so a cached answer is never older than one TTL (graphql/createJsonLane.ts).
   */
  freshDashboard?: boolean;
  /** The request's loaders and memoized pages (schema/requestCache.ts), emptied when its execution is done. */
  requestCache?: Map<object, unknown>;
}

/** Setup only: every type lives in its own module beside its fields (see schema/index.ts). */
export const builder = new SchemaBuilder<{
  Context: GraphqlContext;
  DefaultFieldNullability: false;
  Scalars: {
    Uint256: { Input: bigint; Output: bigint };
    DateTime: { Input: Date; Output: Date };
  };
}>({
  plugins: [DataloaderPlugin],
  defaultFieldNullability: false,
});

builder.queryType({ description: "Public, read-only queries over the ledger (no authentication), and the caller's webhooks (authenticated)." });
builder.mutationType({ description: "Webhook management (authenticated: a paired session's bearer token or the passkey session cookie)." });

// The Subscription root exists so the live feed can add fields with `builder.subscriptionField(...)`.
// Until it has one, schema/index.ts leaves the (otherwise invalid, empty) type out of the schema.
builder.subscriptionType({ description: "Live updates." });
