// @agent-ledger/web — browser pages served by the API: the explorer (/, /services, /agents/:id, …), GraphiQL
// (/graphql) and the passkey approval page of device pairing (/approve). `npm run build` bundles them
// (scripts/build.ts → dist/); these handlers serve that output. docs/web.md describes the whole package.
export { createApprovalPageHandler, APPROVAL_PAGE_PATH, type ApprovalPageHandler, type ApprovalPageHandlerOptions } from "./createApprovalPageHandler.ts";
export { createWebHandler, HTML_CACHE, type WebHandler, type WebHandlerOptions } from "./serve/createWebHandler.ts";
export { IMMUTABLE } from "./serve/createAssetServer.ts";
export { readManifest, DEFAULT_DIST_DIR, WebAssetsMissingError, type WebManifest } from "./serve/manifest.ts";
export { matchRoute, type RouteMatch, type RouteName } from "./explorer/routes.ts";
export { DASHBOARD_QUERY, TOKENS_QUERY, FIRST_ANSWER_ID } from "./explorer/dashboardQuery.ts";
export { formatTokenAmount, parseTokenAmount, tokenName, TOKEN_DECIMALS } from "./approve/amounts.ts";
