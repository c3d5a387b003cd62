/** Non-deleted subscriptions one user may hold (spec §8). */
export const MAX_SUBSCRIPTIONS_PER_USER = 25;
/** Channel the worker LISTENs on to enqueue a delivery right away (payload: delivery id). */
export const DELIVERIES_CHANNEL = "webhook_deliveries";
