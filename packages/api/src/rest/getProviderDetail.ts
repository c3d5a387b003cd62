import { ApiError } from "../errors.ts";
import { providerDetailJson } from "./serializers.ts";
import type { RestHandler } from "./types.ts";

/** GET /api/providers/:key — one gateway provider by address or memo fingerprint (GraphQL `provider`). */
export const getProviderDetail: RestHandler = async ({ params, services }) => {
  const p = await services.getProvider(params.key!);
  if (!p) throw new ApiError("not_found", `no provider with key ${params.key}`);
  return { body: providerDetailJson(p) };
};
