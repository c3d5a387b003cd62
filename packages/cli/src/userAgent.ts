import { VERSION } from "./version.ts";

/** The `User-Agent` of every request the CLI sends to the API. */
export const USER_AGENT = `agent-ledger-cli/${VERSION} (node ${process.versions.node})`;
