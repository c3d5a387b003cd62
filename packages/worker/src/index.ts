// Library surface of the webhook worker. The SSRF rule itself is core's resolvePublicAddresses, which the API also calls at create time.
export { assertCallbackAllowed } from "./net/assertCallbackAllowed.ts";
export { CallbackNotAllowedError, type CallbackRefusal } from "./net/CallbackNotAllowedError.ts";
export { createGuardedLookup } from "./net/createGuardedLookup.ts";
export { resolveHost, type ResolveHost } from "./net/resolveHost.ts";
export { startWorker, type RunningWorker, type StartWorkerOptions } from "./startWorker.ts";
export { parseWorkerEnv, type WorkerEnv } from "./env.ts";
export { buildDeliveryRequest, type DeliveryContent, type DeliveryRequest } from "./delivery/buildDeliveryRequest.ts";
export { eventRowJson } from "./delivery/eventRowJson.ts";
export { DELIVERIES_CHANNEL, DELIVERY_QUEUE, DISPATCH_CURSOR_ID, EVENTS_CHANNEL, MAINTENANCE_QUEUE, USER_AGENT } from "./constants.ts";
