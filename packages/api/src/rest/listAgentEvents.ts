import { entityEventsHandler } from "./entityRoutes.ts";

/** GET /api/agents/:id/events?cursor=&limit= — older rows after the detail's first 50. */
export const listAgentEvents = entityEventsHandler("agent");
