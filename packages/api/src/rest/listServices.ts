import { entityListHandler } from "./entityRoutes.ts";

/** GET /api/services — curated services (ids ending `-mpp`), by 7-day amount then id. */
export const listServices = entityListHandler("service");
