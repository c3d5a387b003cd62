export { createPrisma } from "./createPrisma.ts";
export { createPgPool } from "./createPgPool.ts";
export { ensureDatabase } from "./ensureDatabase.ts";
export { migrateDeploy } from "./migrateDeploy.ts";
export { u256FromDb, u256ToDb } from "./u256.ts";
export { Prisma, PrismaClient } from "../generated/client.ts";
export type * from "../generated/client.ts";
export { loadRegistryIntoDb, type RegistryLoadResult } from "./registry/loadRegistryIntoDb.ts";
export { loadMatchContext } from "./loadMatchContext.ts";
