/** graphql-armor limits shared by /graphql and /graphql/stream (a leaf: the feed and the handler both import it). */
export interface GraphqlLimits {
  maxDepth: number;
  maxCost: number;
  maxAliases: number;
  maxTokens: number;
}

export const DEFAULT_GRAPHQL_LIMITS: GraphqlLimits = { maxDepth: 10, maxCost: 5_000, maxAliases: 15, maxTokens: 2_000 };
