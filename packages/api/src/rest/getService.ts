import { entityDetailHandler } from "./entityRoutes.ts";

/** GET /api/services/:id — service detail (404 for unknown ids and for agent ids). */
export const getService = entityDetailHandler("service");
