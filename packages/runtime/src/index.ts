export { assertCallbackAllowed } from "./net/assertCallbackAllowed.ts";
export { bareHost } from "./net/bareHost.ts";
export { CallbackNotAllowedError, type CallbackRefusal } from "./net/CallbackNotAllowedError.ts";
export { createGuardedLookup } from "./net/createGuardedLookup.ts";
export { ipFamily } from "./net/ipFamily.ts";
export { resolveHost, type ResolveHost } from "./net/resolveHost.ts";
export { startOpsServer } from "./ops/startOpsServer.ts";
export { createPgListener, type ListenerLog, type PgListener, type PgListenerOptions } from "./pg/createPgListener.ts";
export { createRpcClient, RpcError, type RpcClient, type RpcErrorKind, type RpcOutcome } from "./rpc/createRpcClient.ts";
