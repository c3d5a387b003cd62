/** BullMQ queue carrying one job per delivery attempt (jobId `<deliveryId>.<attempt>`). */
export const DELIVERY_QUEUE = "webhook-deliveries";
/** BullMQ queue of the repeatable "re-enqueue due deliveries" job. */
export const MAINTENANCE_QUEUE = "webhook-maintenance";
export const MAINTENANCE_SCHEDULER_ID = "requeue-due-deliveries";
/** PostgreSQL channel the indexer NOTIFYs when agent_events rows commit. */
export const EVENTS_CHANNEL = "agent_events";
/** PostgreSQL channel the API NOTIFYs with a delivery id (verification ping, redeliver, resume). */
export const DELIVERIES_CHANNEL = "webhook_deliveries";
/** The webhook dispatcher's row in event_cursors. */
export const DISPATCH_CURSOR_ID = "webhook-dispatch";
export const USER_AGENT = "Svc-Webhooks/1.0";
