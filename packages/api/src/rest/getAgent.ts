import { entityDetailHandler } from "./entityRoutes.ts";

/** GET /api/agents/:id — agent detail (404 for unknown ids and for service ids). */
export const getAgent = entityDetailHandler("agent");
