import { BodyError } from "../http/readBody.ts";

/** A JSON body as an object (what http/readBody.ts readJsonObject accepts): arrays and scalars are 400 `invalid_body`. */
export function jsonObject(body: unknown): Record<string, unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new BodyError("invalid_body", "the body must be a JSON object");
  return body as Record<string, unknown>;
}
