import { entityListHandler } from "./entityRoutes.ts";

/** GET /api/agents — every other watched entity, by 7-day amount then id. */
export const listAgents = entityListHandler("agent");
