import { GraphQLSchema, lexicographicSortSchema } from "../graphql/graphqlJs.ts";
import { builder } from "./builder.ts";
// Each module registers its type(s) and query fields on the builder.
import "./DateTime.ts";
import "./Uint256.ts";
import "./Event.ts";
import "./Entity.ts";
import "./Provider.ts";
import "./Dashboard.ts";
import "./Explorer.ts";
import "./Search.ts";
import "./Feed.ts";
import "./Webhook.ts";
import "./WalletOwner.ts";
import "./Token.ts";

/**
 * The GraphQL schema (sorted, so the printed file is stable). The Subscription root is dropped while it has no
 * fields: GraphQL forbids empty object types.
 */
let built: GraphQLSchema | undefined;

export function buildSchema(): GraphQLSchema {
  return (built ??= assemble());
}

function assemble(): GraphQLSchema {
  const schema = lexicographicSortSchema(builder.toSchema());
  const subscription = schema.getSubscriptionType();
  if (!subscription || Object.keys(subscription.getFields()).length > 0) return schema;
  const config = schema.toConfig();
  return new GraphQLSchema({ ...config, subscription: undefined, types: config.types.filter((t) => t !== subscription) });
}
