import { z } from "zod";
import { ApiError } from "../errors.ts";

/**
 * A zod schema over one value that runs `parse`, a parser that throws ApiError (parseLimit, decodeIdCursor,
 * parseWindow…): its result is the parsed value, its ApiError becomes a zod issue carrying the error's code in
 * `params.code` and its message, which the router answers as is (routes/parseRouteInput.ts). So a route's declared
 * schema answers the very code and message the parser answers everywhere else (GraphQL, services).
 */
export function parsedBy<Out, In = unknown>(parse: (value: In) => Out): z.ZodType<Out> {
  // optional: an absent key reaches `parse` as undefined (a plain z.unknown() would refuse it as "nonoptional")
  return z
    .unknown()
    .optional()
    .transform((value, ctx) => {
      try {
        return parse(value as In);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        ctx.addIssue({ code: "custom", message: error.message, params: { code: error.code } });
        return z.NEVER;
      }
    }) as unknown as z.ZodType<Out>;
}
