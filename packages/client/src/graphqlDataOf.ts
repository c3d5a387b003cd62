import { ApiCallError } from "./ApiCallError.ts";
import { apiCallErrorOf } from "./apiCallErrorOf.ts";
import { retryAfterSeconds } from "./retryAfterSeconds.ts";

/**
 * The `data` of an answer to a GraphQL request (status, parsed JSON body, headers), or the ApiCallError it carries:
 * the first of `errors` (its `extensions.code`, else `graphql_error`), else a non-2xx answer's error envelope, else
 * `invalid_answer` when there is no `data`. Also for a page that got the answer some other way (inlined in the HTML).
 */
export function graphqlDataOf<T>(status: number, body: unknown, headers: Headers = new Headers(), now: Date = new Date()): T {
  const answer = body as { data?: T | null; errors?: { message?: unknown; extensions?: { code?: unknown } }[] } | null;
  const first = Array.isArray(answer?.errors) ? answer.errors[0] : undefined;
  if (first) {
    const code = typeof first.extensions?.code === "string" ? first.extensions.code : "graphql_error";
    const message = typeof first.message === "string" ? first.message : "GraphQL error";
    throw new ApiCallError(status, code, message, retryAfterSeconds(headers, now));
  }
  if (status < 200 || status > 299) throw apiCallErrorOf(status, body, headers, `POST /graphql answered ${status}`, now);
  if (answer?.data == null) throw new ApiCallError(status, "invalid_answer", `POST /graphql answered ${status} without data`);
  return answer.data;
}
