import { randomBytes } from "node:crypto";
import { chmod, mkdir, open, readFile, rename, rm, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { UsageError } from "./exitCodes.ts";

export const DEFAULT_API = "http://127.0.0.1:3000";
export const CREDENTIALS_FILE = "credentials.json";

/** One paired session, as stored (the bearer token is the secret; everything else is descriptive). */
export interface StoredSession {
  api: string;
  access_token: string;
  token_type: string;
  session_id: string;
  expires_at: string;
  agent_key_address: string;
  managed_address: string;
  spend_cap_wei: string;
  per_call_cap_wei: string;
  token: string;
  agent_label: string | null;
  paired_at: string;
}

export interface CredentialsFile {
  version: 1;
  /** The API of the most recent pairing: the default for later commands. */
  current: string | null;
  /** By normalized API base URL. */
  sessions: Record<string, StoredSession>;
}

type Env = Record<string, string | undefined>;

/**
 * Where credentials live: `$AGENT_LEDGER_CONFIG_DIR`, else `$XDG_CONFIG_HOME/agent-ledger`, else (Windows)
 * `%APPDATA%\agent-ledger`, else `~/.config/agent-ledger`.
 */
export function configDir(env: Env = process.env, platform: NodeJS.Platform = process.platform, home = homedir()): string {
  if (env.AGENT_LEDGER_CONFIG_DIR) return env.AGENT_LEDGER_CONFIG_DIR;
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, "agent-ledger");
  if (platform === "win32" && env.APPDATA) return join(env.APPDATA, "agent-ledger");
  return join(home, ".config", "agent-ledger");
}

/** `http://Example.com:3000/` → `http://example.com:3000`. Only http(s) URLs; a path prefix is kept. */
export function normalizeApiUrl(input: string): string {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new UsageError(`--api "${input}" is not a URL (expected something like http://127.0.0.1:3000)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`--api must be an http(s) URL, got ${url.protocol}`);
  if (url.search || url.hash || url.username || url.password) throw new UsageError("--api must be a plain base URL (no query, fragment or credentials)");
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

export function emptyCredentials(): CredentialsFile {
  return { version: 1, current: null, sessions: {} };
}

export interface CredentialStore {
  dir: string;
  path: string;
  /** Warnings found while reading (loose permissions that were fixed). */
  warnings: string[];
  read(): Promise<CredentialsFile>;
  write(file: CredentialsFile): Promise<void>;
}

export function createCredentialStore(dir: string): CredentialStore {
  const path = join(dir, CREDENTIALS_FILE);
  const warnings: string[] = [];
  return {
    dir,
    path,
    warnings,
    async read() {
      let text: string;
      try {
        text = await readFile(path, "utf8");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return emptyCredentials();
        throw error;
      }
      if (process.platform !== "win32") {
        const mode = (await stat(path)).mode & 0o777;
        if (mode & 0o077) {
          await chmod(path, 0o600);
          warnings.push(`${path} was readable by others (mode ${mode.toString(8)}); changed it to 600`);
        }
      }
      let parsed: CredentialsFile;
      try {
        parsed = JSON.parse(text) as CredentialsFile;
      } catch {
        throw new Error(`${path} is not valid JSON: fix or delete it (then pair again)`);
      }
      if (parsed?.version !== 1 || typeof parsed.sessions !== "object" || parsed.sessions === null)
        throw new Error(`${path} has an unknown format: delete it and pair again`);
      return parsed;
    },
    /** Atomic: a 0600 temp file in the same directory, fsync, rename. The directory is created 0700. */
    async write(file) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const tmp = join(dir, `.${CREDENTIALS_FILE}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
      const handle = await open(tmp, "wx", 0o600);
      try {
        await handle.writeFile(`${JSON.stringify(file, null, 2)}\n`, "utf8");
        await handle.sync();
      } finally {
        await handle.close();
      }
      try {
        await chmod(tmp, 0o600); // whatever the umask
        await rename(tmp, path);
      } catch (error) {
        await rm(tmp, { force: true });
        throw error;
      }
    },
  };
}

/**
 * The API base URL of a command: `--api`, else `$AGENT_LEDGER_API`, else the API of the last pairing, else the
 * local default.
 */
export function resolveApi(flag: string | undefined, env: Env, file: CredentialsFile): string {
  if (flag) return normalizeApiUrl(flag);
  if (env.AGENT_LEDGER_API) return normalizeApiUrl(env.AGENT_LEDGER_API);
  if (file.current) return file.current;
  return DEFAULT_API;
}
