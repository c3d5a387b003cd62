import { BodyError } from "../http/readBody.ts";
import type { IncomingMessage, ServerResponse } from "node:http";
import type pg from "pg";
import type { Logger } from "pino";
import { sendApiError, sendError } from "../http/sendError.ts";
import { ApiError } from "../errors.ts";
import { approveFinalize, approveInit } from "./approve.ts";
import { createWalletChain, type WalletChain } from "./chain.ts";
import { sweepReservations } from "./sweepReservations.ts";
import { createSignerCache } from "./sessionSigner.ts";
import { resolveWalletConfig, type WalletOptions } from "./config.ts";
import type { WalletContext, WalletResponse } from "./context.ts";
import { lookupPairing, pollPairing, startPairing } from "./pairing.ts";
import { pay, type PayTiming } from "./pay.ts";
import { createRateLimits, type LimitName } from "./rateLimiter.ts";
import { createRelayHandler } from "./relay.ts";
import { getSession, revokeSession } from "./session.ts";
import { listPayments } from "./listPayments.ts";
import { confirmOwnerRevoke, getOwnerSession, listOwnerSessionPayments, listOwnerSessions, ownerBalances, revokeAllOwnerSessions, revokeOwnerSession } from "./owner.ts";
import { authOptions, authVerify, logout, me, registerOptions, registerVerify } from "./webauthn.ts";
import { WalletError } from "./WalletError.ts";

type Handler = (ctx: WalletContext, req: IncomingMessage, url: URL) => Promise<WalletResponse>;

export interface WalletDeps {
  db: pg.Pool;
  log: Logger;
  options?: Partial<WalletOptions>;
  now?: () => Date;
  /** Per-payment timings (the benchmark reads server-side overhead from here). */
  onPayTiming?: (t: PayTiming) => void;
  /** Injected chain (tests); default: built from the options. */
  chain?: WalletChain;
}

/** The /api/wallet/* surface (docs/wallet.md): passkeys, device pairing, relay, payments, sessions. */
export function createWalletHandler(deps: WalletDeps) {
  const config = resolveWalletConfig(deps.options);
  const ctx: WalletContext = {
    db: deps.db,
    log: deps.log,
    config,
    chain: deps.chain ?? createWalletChain(config),
    now: deps.now ?? (() => new Date()),
    limits: createRateLimits({
      redisUrl: config.redisUrl,
      keyPrefix: config.rateLimitPrefix,
      trustProxy: config.trustProxy,
      perMinute: {
        start: config.startPerMinute,
        code: config.codePerMinute,
        codeUser: config.codePerUserPerMinute,
        options: config.webauthnOptionsPerMinute,
        relay: config.relayPerMinute,
      },
    }, deps.log),
    signers: createSignerCache(),
  };
  /**
   * Per-client-address limits, counted before anything else (before the session cookie is even looked up): every path
   * that takes a device code, and every path that stores something without a login. The code paths also count per
   * signed-in user (in the handlers, after requireUser). docs/wallet.md § Rate limits.
   */
  const addressLimits: Record<string, LimitName> = {
    "/api/wallet/device/start": "start",
    "/api/wallet/device/lookup": "code",
    "/api/wallet/device/approve-init": "code",
    "/api/wallet/device/approve-finalize": "code",
    "/api/wallet/webauthn/register/options": "options",
    "/api/wallet/webauthn/auth/options": "options",
    "/api/wallet/relay": "relay",
  };
  const limitAddress = async (req: IncomingMessage, path: string) => {
    const name = addressLimits[path];
    if (name) await ctx.limits.consume(name, ctx.limits.clientKey(req));
  };
  const relay = createRelayHandler(ctx);
  const routes: Record<string, Partial<Record<"GET" | "POST", Handler>>> = {
    "/api/wallet/webauthn/register/options": { POST: (c, r) => registerOptions(c, r) },
    "/api/wallet/webauthn/register/verify": { POST: (c, r) => registerVerify(c, r) },
    "/api/wallet/webauthn/auth/options": { POST: (c, r) => authOptions(c, r) },
    "/api/wallet/webauthn/auth/verify": { POST: (c, r) => authVerify(c, r) },
    "/api/wallet/me": { GET: (c, r) => me(c, r) },
    "/api/wallet/logout": { POST: (c, r) => logout(c, r) },
    "/api/wallet/device/start": { POST: (c, r) => startPairing(c, r) },
    "/api/wallet/device/poll": { GET: (c, _r, u) => pollPairing(c, u) },
    "/api/wallet/device/lookup": { GET: (c, r, u) => lookupPairing(c, r, u) },
    "/api/wallet/device/approve-init": { POST: (c, r) => approveInit(c, r) },
    "/api/wallet/device/approve-finalize": { POST: (c, r) => approveFinalize(c, r) },
    "/api/wallet/pay": { POST: (c, r) => pay(c, r, deps.onPayTiming) },
    "/api/wallet/session": { GET: (c, r) => getSession(c, r) },
    "/api/wallet/payments": { GET: (c, r, u) => listPayments(c, r, u) },
    "/api/wallet/session/revoke": { POST: (c, r) => revokeSession(c, r) },
    // the owner's console (cookie; owner.ts)
    "/api/wallet/sessions": { GET: (c, r) => listOwnerSessions(c, r) },
    "/api/wallet/sessions/revoke-all": { POST: (c, r) => revokeAllOwnerSessions(c, r) },
    "/api/wallet/sessions/revoke-confirm": { POST: (c, r) => confirmOwnerRevoke(c, r) },
    "/api/wallet/balances": { GET: (c, r) => ownerBalances(c, r) },
  };
  /** /api/wallet/sessions/:id and its sub-resources (owner.ts). */
  const sessionRoute = (path: string): Partial<Record<"GET" | "POST", Handler>> | undefined => {
    const m = /^\/api\/wallet\/sessions\/([^/]+)(\/payments|\/revoke)?$/.exec(path);
    if (!m || m[1] === "revoke-all" || m[1] === "revoke-confirm") return undefined;
    let id = m[1]!;
    try {
      id = decodeURIComponent(id);
    } catch {
      // not an id: 404 below
    }
    if (m[2] === "/payments") return { GET: (c, r, u) => listOwnerSessionPayments(c, r, id, u) };
    if (m[2] === "/revoke") return { POST: (c, r) => revokeOwnerSession(c, r, id) };
    return { GET: (c, r) => getOwnerSession(c, r, id) };
  };

  // Settles reservations that an interrupted payment left behind (sweepReservations), every sweepIntervalMs.
  let sweeper: NodeJS.Timeout | null = null;
  let sweeping: Promise<unknown> | null = null;
  const sweep = () => {
    if (sweeping) return;
    sweeping = sweepReservations(ctx, ctx.now())
      .catch((err) => ctx.log.error({ err }, "wallet sweeper failed"))
      .finally(() => (sweeping = null));
  };

  return Object.assign(handleWallet, {
    /** What every wallet operation gets (the GraphQL owner fields use it too: schema/WalletOwner.ts). */
    ctx,
    /** Every path and method this handler serves (the input fuzz test enumerates them: test/invalidInput.test.ts). */
    routes: [
      ...Object.entries(routes).flatMap(([path, methods]) => Object.keys(methods).map((method) => ({ method: method as "GET" | "POST", path }))),
      { method: "POST" as const, path: "/api/wallet/relay" },
      // sessionRoute's paths (keep in step with it)
      { method: "GET" as const, path: "/api/wallet/sessions/:id" },
      { method: "GET" as const, path: "/api/wallet/sessions/:id/payments" },
      { method: "POST" as const, path: "/api/wallet/sessions/:id/revoke" },
    ],
    /** Starts the reservation sweeper (only with a chain and a non-zero interval). */
    startSweeper(): void {
      if (sweeper || !config.rpcUrl || config.sweepIntervalMs <= 0) return;
      sweeper = setInterval(sweep, config.sweepIntervalMs);
      sweeper.unref();
    },
    async stopSweeper(): Promise<void> {
      if (sweeper) clearInterval(sweeper);
      sweeper = null;
      await sweeping;
    },
    /** Stops the sweeper and closes the rate limits' Redis connection. */
    async close(): Promise<void> {
      if (sweeper) clearInterval(sweeper);
      sweeper = null;
      await sweeping;
      ctx.limits.close();
    },
  });

  async function handleWallet(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const method = req.method ?? "GET";
    const path = url.pathname.length > 1 && url.pathname.endsWith("/") ? url.pathname.slice(0, -1) : url.pathname;
    try {
      if (path === "/api/wallet/relay") {
        if (method !== "POST") throw new WalletError("method_not_allowed", `${method} is not allowed on ${path}`, { allow: "POST" });
        await limitAddress(req, path);
        return await relay(req, res);
      }
      const route = routes[path] ?? sessionRoute(path);
      if (!route) throw new WalletError("not_found", `no route for ${method} ${url.pathname}`);
      const handler = route[method as "GET" | "POST"] ?? (method === "HEAD" ? route.GET : undefined);
      if (!handler) throw new WalletError("method_not_allowed", `${method} is not allowed on ${path}`, { allow: Object.keys(route).join(", ") });
      await limitAddress(req, path);
      const out = await handler(ctx, req, url);
      const text = JSON.stringify(out.body);
      res.writeHead(out.status ?? 200, {
        "content-type": "application/json; charset=utf-8",
        "content-length": String(Buffer.byteLength(text)),
        "cache-control": "no-store",
        ...out.headers,
      });
      res.end(method === "HEAD" ? undefined : text);
    } catch (error) {
      if (res.headersSent) return void res.destroy();
      if (error instanceof ApiError) return sendApiError(res, error);
      deps.log.error({ err: error, path: url.pathname }, "unhandled wallet API error");
      sendError(res, "internal_error", "internal error");
    }
  }
}
