// Library surface of the webhook worker. Its SSRF adapter (DNS lookup, guarded socket lookup, CallbackNotAllowedError) is
// @agent-ledger/runtime's, which the API also uses at create time; the rule itself is core's resolvePublicAddresses.
export { startWorker, type RunningWorker, type StartWorkerOptions } from "./startWorker.ts";
export { parseWorkerEnv, type WorkerEnv } from "./env.ts";
export { buildDeliveryRequest, type DeliveryContent, type DeliveryRequest } from "./delivery/buildDeliveryRequest.ts";
export { eventRowJson } from "./delivery/eventRowJson.ts";
export { DELIVERIES_CHANNEL, DELIVERY_QUEUE, DISPATCH_CURSOR_ID, EVENTS_CHANNEL, MAINTENANCE_QUEUE, USER_AGENT } from "./constants.ts";
