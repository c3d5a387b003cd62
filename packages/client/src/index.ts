// @agent-ledger/client — the one typed HTTP client of the Agent Ledger API (fetch only: Node and browsers).
export { ApiCallError } from "./ApiCallError.ts";
export {
  createApiClient,
  type ApiAnswer,
  type ApiClient,
  type ApiClientOptions,
  type ApiFetchInit,
  type CallOptions,
  type FetchLike,
  type HttpMethod,
  type RequestOptions,
} from "./createApiClient.ts";
export { apiCallErrorOf } from "./apiCallErrorOf.ts";
export { graphqlDataOf } from "./graphqlDataOf.ts";
export { retryAfterSeconds } from "./retryAfterSeconds.ts";
