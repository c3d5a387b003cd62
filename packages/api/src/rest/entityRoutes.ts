import { z } from "zod";
import { ApiError } from "../errors.ts";
import { parsedBy } from "../routes/parsedBy.ts";
import type { Operation } from "../routes/Route.ts";
import { decodeIdCursor } from "../services/cursor.ts";
import { parseLimit } from "../services/parseLimit.ts";
import type { EntityKind } from "../services/types.ts";
import { entityDetailJson, entityListItemJson, eventPageJson } from "./serializers.ts";
import { errorResponse, idParam, ok, pageParams, ref } from "./openapi.ts";
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

/** `?limit=` (1–100, default 50: 400 `invalid_limit`) and `?cursor=` (a detail's or page's nextCursor: 400 `invalid_cursor`). */
export const ENTITY_EVENTS_QUERY = z.object({
  limit: parsedBy((limit: string | undefined) => parseLimit(limit, EVENTS_PAGE_DEFAULT, EVENTS_PAGE_MAX)),
  cursor: parsedBy((cursor: string | undefined) => decodeIdCursor(cursor)),
});

export function entityEventsHandler(kind: EntityKind): RestHandler<z.output<typeof ENTITY_EVENTS_QUERY>> {
  return async ({ params, query: { limit, cursor: before }, services }) => {
    if (!(await services.findEntity(kind, params.id!))) throw new ApiError("not_found", `no ${kind} with id ${shown(params.id!)}`);
    return { body: eventPageJson(await services.listEntityEvents(params.id!, { limit, before })) };
  };
}

/** The OpenAPI Operations of the three entity routes of a kind (beside their handlers above). */
export function entityOperations(kind: "service" | "agent", plural: "services" | "agents"): Record<"list" | "detail" | "events", Operation> {
  const which = kind === "service" ? "curated services (ids ending `-mpp`)" : "watched non-curated entities";
  return {
    list: {
      operationId: `list${plural[0]!.toUpperCase()}${plural.slice(1)}`,
      summary: `All ${which} with 24 h and 7 d payment aggregates, by 7-day amount descending then id`,
      responses: { "200": ok({ type: "array", items: ref("EntityListItem") }) },
    },
    detail: {
      operationId: `get${kind[0]!.toUpperCase()}${kind.slice(1)}`,
      summary: `${kind} detail: head, wallets, totals, 30-day trend, 50 newest rows${kind === "service" ? ", providers (tempo-gateway-mpp only)" : ""}`,
      parameters: [idParam(`${kind} id`)],
      responses: { "200": ok(ref("EntityDetail")), "404": errorResponse(`unknown id, or not a ${kind} id (not_found)`) },
    },
    events: {
      operationId: `list${kind[0]!.toUpperCase()}${kind.slice(1)}Events`,
      summary: `Rows of a ${kind}, newest first; pass the detail's nextCursor to continue`,
      parameters: [idParam(`${kind} id`), ...pageParams],
      responses: {
        "200": ok(ref("EventPage")),
        "400": errorResponse("invalid_cursor or invalid_limit"),
        "404": errorResponse(`unknown id, or not a ${kind} id (not_found)`),
      },
    },
  };
}
