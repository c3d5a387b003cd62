// `npm run db:migrate`: applies the pending migrations to DATABASE_URL (the local default otherwise).
// From a build: `node packages/db/dist/migrateMain.js`.
import { migrateDeploy } from "./migrateDeploy.ts";

await migrateDeploy(process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/agent_ledger");
