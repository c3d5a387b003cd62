export {};
export { startOpsServer } from "./ops/startOpsServer.ts";
export { createPgListener, type ListenerLog, type PgListener, type PgListenerOptions } from "./pg/createPgListener.ts";
export { createRpcClient, RpcError, type RpcClient, type RpcErrorKind, type RpcOutcome } from "./rpc/createRpcClient.ts";
