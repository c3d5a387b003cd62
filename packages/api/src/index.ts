// Library surface of the API, for scripts, benchmarks and other packages' tests.
export { buildApp, type App, type AppDeps } from "./buildApp.ts";
export { parseApiEnv, type ApiEnv } from "./env.ts";
export { ApiError, ERROR_CODES, type ErrorCode } from "./errors.ts";
export { createServices, type Services, type ServicesOptions } from "./services/createServices.ts";
export type * from "./services/types.ts";
export { buildSchema } from "./schema/index.ts";
export { builder, type GraphqlContext } from "./schema/builder.ts";
export { buildOpenApiDocument } from "./routes/buildOpenApiDocument.ts";
export { ALL_ROUTES, ROUTE_TABLE } from "./routes/mountRoutes.ts";
export type { AnyRoute, JsonRoute, RawRoute, RouteResult } from "./routes/Route.ts";
