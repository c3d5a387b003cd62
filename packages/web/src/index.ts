// @agent-ledger/web — browser pages served by the API: the passkey approval page of device pairing.
export { buildApprovalPage, APPROVAL_PAGE_PATHS, type ApprovalPageAssets } from "./buildApprovalPage.ts";
export { createApprovalPageHandler, type ApprovalPageHandler, type ApprovalPageHandlerOptions } from "./createApprovalPageHandler.ts";
export { formatTokenAmount, parseTokenAmount, tokenName, TOKEN_DECIMALS } from "./approve/amounts.ts";
