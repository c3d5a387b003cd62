import { entityEventsHandler } from "./entityRoutes.ts";

/** GET /api/services/:id/events?cursor=&limit= — older rows after the detail's first 50. */
export const listServiceEvents = entityEventsHandler("service");
