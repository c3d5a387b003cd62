export { createPgPool } from "./createPgPool.ts";
export { inTransaction } from "./inTransaction.ts";
export { ensureDatabase } from "./ensureDatabase.ts";
export { migrateDeploy } from "./migrateDeploy.ts";
export { resetDatabase } from "./resetDatabase.ts";
export { u256FromDb, u256ToDb } from "./u256.ts";
export { loadRegistryIntoDb, type RegistryLoadResult } from "./registry/loadRegistryIntoDb.ts";
export { loadMatchContext } from "./loadMatchContext.ts";
export { countTokens } from "./countTokens.ts";
export {
  EVENT_FILTER_COLUMNS,
  insertEventDeliveries,
  matchEventDeliveries,
  SUBSCRIPTION_FILTER_COLUMNS,
  type CreatedDelivery,
  type DeliveryPairs,
  type EventFilterRow,
  type SubscriptionFilterRow,
} from "./webhooks/eventDeliveries.ts";
export { recoverDeliveries, type RecoverDeliveriesOptions, type RecoverDeliveriesResult } from "./webhooks/recoverDeliveries.ts";
export {
  createReadRouting,
  type ReadRouting,
  type ReadRoutingEvent,
  type ReadRoutingOptions,
  type ReadRoutingStatus,
  type ReadSourceStatus,
} from "./createReadRouting.ts";
