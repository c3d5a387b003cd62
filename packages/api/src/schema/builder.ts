import SchemaBuilder from "@pothos/core";
import DataloaderPlugin from "@pothos/plugin-dataloader";
import type { Services } from "../services/createServices.ts";

/** Per-request GraphQL context: the shared read services (loaders are cached per context object). */
export interface GraphqlContext {
  services: Services;
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

builder.queryType({ description: "Public, read-only queries over the ledger (no authentication)." });

// The Subscription root exists so the live feed can add fields with `builder.subscriptionField(...)`.
// Until it has one, schema/index.ts leaves the (otherwise invalid, empty) type out of the schema.
builder.subscriptionType({ description: "Live updates." });
