export { answerMalformedMessages } from "./answerMalformedMessages.ts";
export { createLedgerMcpServer, SERVER_NAME, SERVER_VERSION, type LedgerMcpServerOptions } from "./createLedgerMcpServer.ts";
export { ApiCallError, createApiCaller, type ApiCaller, type ApiCallerOptions, type FetchLike } from "./createApiCaller.ts";
export { METHODOLOGY_URI, REGISTRY_URI, readMethodology } from "./registerResources.ts";
export { EVENT_FIELDS } from "./ledgerDocuments.ts";
