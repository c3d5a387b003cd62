import { ApiError } from "../errors.ts";
import { eventDetailJson } from "./serializers.ts";
import type { RestHandler } from "./types.ts";

/** GET /api/events/:id — one row with log_index and the other rows of its transaction. */
export const getEvent: RestHandler = async ({ params, services }) => {
  const detail = await services.getEvent(params.id!);
  if (!detail) throw new ApiError("not_found", `no event with id ${params.id}`);
  return { body: eventDetailJson(detail) };
};
