import type { ApiClient } from "@agent-ledger/client";
import type { CredentialsFile, CredentialStore, StoredSession } from "./config.ts";
import { CliError, EXIT } from "./exitCodes.ts";

export interface Output {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface Io {
  stdout: Output;
  stderr: Output;
  env: Record<string, string | undefined>;
  /** Opens a URL in a browser; false when it could not (never throws). */
  openBrowser(url: string): boolean;
  /** Whether a person is at the terminal (stdin and stderr are TTYs). */
  interactive: boolean;
}

export interface Context {
  io: Io;
  json: boolean;
  api: string;
  client: ApiClient;
  store: CredentialStore;
  credentials: CredentialsFile;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
  options: Record<string, string | boolean | undefined>;
  args: string[];
}

export const print = (ctx: Context, line = "") => void ctx.io.stdout.write(`${line}\n`);
export const note = (ctx: Context, line = "") => void ctx.io.stderr.write(`${line}\n`);
export const printJson = (ctx: Context, value: unknown) => void ctx.io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

/** The stored session for the command's API, or exit 3 (not paired). */
export function requireSession(ctx: Context): StoredSession {
  const session = ctx.credentials.sessions[ctx.api];
  if (!session) {
    const others = Object.keys(ctx.credentials.sessions);
    throw new CliError(EXIT.UNAUTHORIZED, `not paired with ${ctx.api}`, {
      code: "not_paired",
      hint: others.length ? `paired with: ${others.join(", ")} (use --api), or run \`agent-ledger pair\`` : "run `agent-ledger pair` first",
    });
  }
  return session;
}

/** "in 23 h 5 min", "3 min ago". */
export function relativeTime(iso: string, now = Date.now()): string {
  const ms = Date.parse(iso) - now;
  const abs = Math.abs(ms);
  const m = Math.round(abs / 60_000);
  const text = m < 1 ? "less than a minute" : m < 60 ? `${m} min` : m < 48 * 60 ? `${Math.floor(m / 60)} h ${m % 60} min` : `${Math.round(m / 1440)} days`;
  return ms >= 0 ? `in ${text}` : `${text} ago`;
}
