import { ApiError } from "../errors.ts";
import { decodeIdCursor } from "../services/cursor.ts";
import { parseLimit } from "../services/parseLimit.ts";
import type { EntityKind } from "../services/types.ts";
import { entityDetailJson, entityListItemJson, eventPageJson } from "./serializers.ts";
import type { RestHandler } from "./types.ts";

export const EVENTS_PAGE_DEFAULT = 50;

const shown = (id: string) => JSON.stringify(id.length > 100 ? `${id.slice(0, 100)}…` : id);
export const EVENTS_PAGE_MAX = 100;

// Shared by the /api/services* and /api/agents* path files: the two kinds differ only in which ids they accept.

export function entityListHandler(kind: EntityKind): RestHandler {
  return async ({ services }) => ({ body: (await services.listEntities(kind)).map(entityListItemJson) });
}

export function entityDetailHandler(kind: EntityKind): RestHandler {
  return async ({ params, services }) => {
    const detail = await services.getEntityDetail(kind, params.id!);
    if (!detail) throw new ApiError("not_found", `no ${kind} with id ${shown(params.id!)}`);
    return { body: entityDetailJson(detail) };
  };
}

export function entityEventsHandler(kind: EntityKind): RestHandler {
  return async ({ params, query, services }) => {
    const limit = parseLimit(query.get("limit"), EVENTS_PAGE_DEFAULT, EVENTS_PAGE_MAX);
    const before = decodeIdCursor(query.get("cursor"));
    if (!(await services.findEntity(kind, params.id!))) throw new ApiError("not_found", `no ${kind} with id ${shown(params.id!)}`);
    return { body: eventPageJson(await services.listEntityEvents(params.id!, { limit, before })) };
  };
}
