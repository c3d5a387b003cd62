import { createApiClient } from "@agent-ledger/client";

/**
 * The API client of every page that signs in with the passkey (the approval page and the owner console): same origin,
 * the session cookie goes along (`credentials: same-origin`; browsers add `Origin`, which the API checks on cookie
 * writes), JSON in and out, 30 s per call unless the call says otherwise; a failure throws the client's ApiCallError.
 */
export const pageClient = createApiClient({ baseUrl: "", credentials: "same-origin" });
