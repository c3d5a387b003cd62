import { mkdtemp, readFile, rm, stat, writeFile, chmod, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { configDir, createCredentialStore, DEFAULT_API, emptyCredentials, normalizeApiUrl, resolveApi, type StoredSession } from "./config.ts";
import { UsageError } from "./exitCodes.ts";

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});
const tmp = async () => {
  const d = await mkdtemp(join(tmpdir(), "al-cli-"));
  dirs.push(d);
  return d;
};

const session = (api: string): StoredSession => ({
  api,
  access_token: "alt_secret",
  token_type: "Bearer",
  session_id: "s1",
  expires_at: "2030-01-01T00:00:00.000Z",
  agent_key_address: "0x1",
  managed_address: "0x2",
  spend_cap_wei: "10",
  per_call_cap_wei: "1",
  token: "0x20c0000000000000000000000000000000000000",
  agent_label: "a",
  paired_at: "2026-01-01T00:00:00.000Z",
});

describe("configDir", () => {
  it("prefers AGENT_LEDGER_CONFIG_DIR, then XDG_CONFIG_HOME, then ~/.config", () => {
    expect(configDir({ AGENT_LEDGER_CONFIG_DIR: "/a", XDG_CONFIG_HOME: "/x" }, "linux", "/home/u")).toBe("/a");
    expect(configDir({ XDG_CONFIG_HOME: "/x" }, "linux", "/home/u")).toBe("/x/agent-ledger");
    expect(configDir({}, "linux", "/home/u")).toBe("/home/u/.config/agent-ledger");
    expect(configDir({ APPDATA: "C:\\Users\\u\\AppData\\Roaming" }, "win32", "C:\\Users\\u")).toMatch(/agent-ledger$/);
  });
});

describe("API URL", () => {
  it("normalizes and validates", () => {
    expect(normalizeApiUrl("http://LOCALHOST:3000/")).toBe("http://localhost:3000");
    expect(normalizeApiUrl("https://api.example.com/ledger/")).toBe("https://api.example.com/ledger");
    expect(() => normalizeApiUrl("ftp://x")).toThrow(UsageError);
    expect(() => normalizeApiUrl("not a url")).toThrow(UsageError);
    expect(() => normalizeApiUrl("http://u:p@x")).toThrow(UsageError);
  });
  it("resolves --api, then $AGENT_LEDGER_API, then the last pairing, then the default", () => {
    const file = { ...emptyCredentials(), current: "http://paired:1" };
    expect(resolveApi("http://flag:1/", { AGENT_LEDGER_API: "http://env:1" }, file)).toBe("http://flag:1");
    expect(resolveApi(undefined, { AGENT_LEDGER_API: "http://env:1" }, file)).toBe("http://env:1");
    expect(resolveApi(undefined, {}, file)).toBe("http://paired:1");
    expect(resolveApi(undefined, {}, emptyCredentials())).toBe(DEFAULT_API);
  });
});

describe("credential store", () => {
  it("reads nothing as empty, writes atomically with mode 0600 in a 0700 directory", async () => {
    const dir = join(await tmp(), "nested", "agent-ledger");
    const store = createCredentialStore(dir);
    expect(await store.read()).toEqual(emptyCredentials());
    const file = { version: 1 as const, current: "http://a:1", sessions: { "http://a:1": session("http://a:1") } };
    await store.write(file);
    expect((await stat(store.path)).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect(await store.read()).toEqual(file);
    expect(await readdir(dir)).toEqual(["credentials.json"]); // no temp file left
    await store.write({ ...file, current: null });
    expect((await store.read()).current).toBeNull();
  });
  it("tightens a file that others can read, and refuses garbage", async () => {
    const dir = await tmp();
    const store = createCredentialStore(dir);
    await writeFile(store.path, JSON.stringify(emptyCredentials()));
    await chmod(store.path, 0o644);
    await store.read();
    expect((await stat(store.path)).mode & 0o777).toBe(0o600);
    expect(store.warnings[0]).toMatch(/readable by others/);
    await writeFile(store.path, "{nope");
    await expect(store.read()).rejects.toThrow(/not valid JSON/);
    await writeFile(store.path, JSON.stringify({ version: 9 }));
    await expect(store.read()).rejects.toThrow(/unknown format/);
    expect(await readFile(store.path, "utf8")).toContain("9");
  });
});
