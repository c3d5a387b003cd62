import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import type pg from "pg";
import { AuthError, authenticate } from "../auth/authenticate.ts";
import { sendApiError, sendError } from "../http/sendError.ts";
import { ApiError } from "../errors.ts";
import { sendJson } from "../http/sendJson.ts";
import type { WebhookService } from "./createWebhookService.ts";
import { BodyError, readJsonBody } from "../http/readBody.ts";

type Handler = (ctx: { req: IncomingMessage; owner: string | null; params: string[]; service: WebhookService; url: URL }) => Promise<{ status?: number; body: unknown }>;
export interface Route { method: "GET" | "POST" | "DELETE"; pattern: RegExp; auth: "required" | "optional"; handle: Handler }

const ID = "([^/]+)";
const owner = (o: string | null) => o!;
/** Every webhook path (exported for the input fuzz test, which enumerates them: test/invalidInput.test.ts). */
export const ROUTES: Route[] = [
  { method: "POST", pattern: /^\/api\/webhooks$/, auth: "required", handle: async ({ req, owner: o, service }) => ({ status: 201, body: await service.create(owner(o), await readJsonBody(req)) }) },
  { method: "GET", pattern: /^\/api\/webhooks$/, auth: "required", handle: async ({ owner: o, service }) => ({ body: await service.list(owner(o)) }) },
  { method: "GET", pattern: new RegExp(`^/api/webhooks/${ID}$`), auth: "required", handle: async ({ owner: o, params, service }) => ({ body: await service.get(owner(o), params[0]!) }) },
  { method: "DELETE", pattern: new RegExp(`^/api/webhooks/${ID}$`), auth: "required", handle: async ({ owner: o, params, service }) => ({ body: await service.remove(owner(o), params[0]!) }) },
  { method: "POST", pattern: new RegExp(`^/api/webhooks/${ID}/verify$`), auth: "optional", handle: async ({ req, owner: o, params, service }) => ({ body: await service.verify(o, params[0]!, await readJsonBody(req)) }) },
  { method: "POST", pattern: new RegExp(`^/api/webhooks/${ID}/rotate-secret$`), auth: "required", handle: async ({ owner: o, params, service }) => ({ body: await service.rotateSecret(owner(o), params[0]!) }) },
  { method: "POST", pattern: new RegExp(`^/api/webhooks/${ID}/pause$`), auth: "required", handle: async ({ owner: o, params, service }) => ({ body: await service.pause(owner(o), params[0]!) }) },
  { method: "POST", pattern: new RegExp(`^/api/webhooks/${ID}/resume$`), auth: "required", handle: async ({ owner: o, params, service }) => ({ body: await service.resume(owner(o), params[0]!) }) },
  { method: "POST", pattern: new RegExp(`^/api/webhooks/${ID}/recover$`), auth: "required", handle: async ({ req, owner: o, params, service }) => ({ status: 202, body: await service.recover(owner(o), params[0]!, await readJsonBody(req)) }) },
  { method: "POST", pattern: new RegExp(`^/api/webhooks/${ID}/test$`), auth: "required", handle: async ({ owner: o, params, service }) => ({ status: 202, body: await service.test(owner(o), params[0]!) }) },
  { method: "GET", pattern: new RegExp(`^/api/webhooks/${ID}/deliveries$`), auth: "required", handle: async ({ owner: o, params, service, url }) => ({ body: await service.listDeliveries(owner(o), params[0]!, url.searchParams) }) },
  { method: "POST", pattern: new RegExp(`^/api/webhooks/${ID}/deliveries/${ID}/redeliver$`), auth: "required", handle: async ({ owner: o, params, service }) => ({ status: 202, body: await service.redeliver(owner(o), params[0]!, params[1]!) }) },
];

const PREFLIGHT = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
  "access-control-allow-headers": "authorization, content-type",
  "access-control-max-age": "86400",
};

/** REST for /api/webhooks/* (spec §4 Webhooks), authenticated per spec §5. */
export function createWebhookRestHandler(deps: { db: pg.Pool; service: WebhookService; log: Logger; now?: () => Date }) {
  return async function handleWebhooks(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const method = req.method ?? "GET";
    const path = url.pathname.length > 1 && url.pathname.endsWith("/") ? url.pathname.slice(0, -1) : url.pathname;
    try {
      const candidates = ROUTES.filter((r) => r.pattern.test(path));
      if (candidates.length === 0) throw new ApiError("not_found", `no route for ${method} ${url.pathname}`);
      if (method === "OPTIONS") {
        res.writeHead(204, PREFLIGHT);
        return void res.end();
      }
      const route = candidates.find((r) => r.method === method);
      if (!route) {
        return sendError(res, "method_not_allowed", `${method} is not allowed on ${url.pathname}`, { allow: [...new Set(candidates.map((r) => r.method)), "OPTIONS"].join(", ") });
      }
      const params = route.pattern.exec(path)!.slice(1).map((p) => {
        try {
          return decodeURIComponent(p);
        } catch {
          return p;
        }
      });
      const principal = await authenticate(deps.db, req.headers, (deps.now ?? (() => new Date()))(), { optional: route.auth === "optional" });
      const out = await route.handle({ req, owner: principal?.userId ?? null, params, service: deps.service, url });
      sendJson(res, out.status ?? 200, out.body, { "cache-control": "no-store" });
    } catch (error) {
      if (res.headersSent) return void res.destroy();
      if (error instanceof ApiError) return sendApiError(res, error, error.code === "unauthorized" ? { "www-authenticate": "Bearer" } : {});
      deps.log.error({ err: error, path: url.pathname }, "unhandled webhook API error");
      sendError(res, "internal_error", "internal error");
    }
  };
}
