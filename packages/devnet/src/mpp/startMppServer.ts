import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Mppx, tempo } from "mppx/server";
import type { Account, Address, Hex } from "viem";
import { PATH_USD } from "../constants.ts";
import { DevnetError } from "../errors.ts";
import { legacySession, type LegacySessionEvent, type LegacySessionServer } from "./legacySession.ts";
import { mppDevnetClientResolver } from "./mppDevnetChain.ts";
import { mppFingerprint } from "./mppFingerprint.ts";

/** A charge offer: every paid request moves `amount` of `currency` to `recipient` (less the splits, which go to theirs). */
export type MppChargeOffer = {
  recipient: Address;
  /** Decimal token units per request ("0.05"). */
  amount: string;
  currency?: Address;
  /** Part of each payment sent to other recipients in the same transaction (plain transfers, no memo). */
  splits?: { recipient: Address; amount: string }[];
};

/** A session offer: pay-as-you-go through the escrow, `amount` per request, vouchers signed to `payee`. */
export type MppSessionOffer = {
  /** The payee's account: the escrow only takes settle/close from the payee, so the server signs with it. */
  payee: Account;
  amount: string;
  suggestedDeposit: string;
  currency?: Address;
};

/** One MPP realm served by the server: its challenges carry `realm`, so its payments' memos carry keccak(realm)[0..9]. */
export type MppRealmConfig = {
  /** URL path prefix: the realm is served at `/<id>/charge` and `/<id>/session`. */
  id: string;
  realm: string;
  charge?: MppChargeOffer;
  session?: MppSessionOffer;
};

export type MppServerRealm = MppRealmConfig & {
  /** keccak256(realm)[0..9]: the serverId in this realm's charge memos. */
  serverId: Hex;
  chargeUrl?: string;
  sessionUrl?: string;
  /** The realm's session server (settle, channel states), when it offers sessions. */
  sessions?: LegacySessionServer;
};

export type MppServer = {
  url: string;
  realms: ReadonlyMap<string, MppServerRealm>;
  realm(id: string): MppServerRealm;
  stop(): Promise<void>;
};

export type StartMppServerParams = {
  rpcUrl: string;
  realms: readonly MppRealmConfig[];
  /** The session escrow every session realm points its `escrowContract` at. */
  escrowContract?: Address;
  /** Listen port on 127.0.0.1 (default 0: any free port). */
  port?: number;
  onSessionEvent?: (realm: string, event: LegacySessionEvent) => void;
};

/**
 * Starts one loopback HTTP server serving MPP realms with the official mppx server (`Mppx.create` per realm, realm set
 * explicitly): `tempo.charge` for charge offers (recipient, currency, optional `splits` per request) and the v1
 * session method (legacySession, escrowContract = our escrow) for session offers. Several realms may share one
 * recipient (a gateway). Every response to a paid request is JSON `{ realm, path }` with mppx's Payment-Receipt.
 */
export async function startMppServer(p: StartMppServerParams): Promise<MppServer> {
  const getClient = mppDevnetClientResolver(p.rpcUrl);
  const realms = new Map<string, MppServerRealm>();
  const handlers = new Map<string, { charge?: http.RequestListener; session?: http.RequestListener }>();

  for (const config of p.realms) {
    if (!/^[a-z0-9-]+$/.test(config.id)) throw new DevnetError(`realm id ${config.id} must be [a-z0-9-]+ (it is a URL path segment)`);
    if (realms.has(config.id)) throw new DevnetError(`realm id ${config.id} is used twice`);
    const entry: MppServerRealm = { ...config, serverId: mppFingerprint(config.realm) };
    const methods = [];
    if (config.charge) methods.push(tempo.charge({ currency: config.charge.currency ?? PATH_USD, recipient: config.charge.recipient, getClient }));
    if (config.session) {
      if (!p.escrowContract) throw new DevnetError(`realm ${config.id} offers sessions but no escrowContract was given`);
      entry.sessions = legacySession({
        account: config.session.payee,
        escrowContract: p.escrowContract,
        getClient,
        amount: config.session.amount,
        currency: config.session.currency ?? PATH_USD,
        suggestedDeposit: config.session.suggestedDeposit,
        onEvent: (e) => p.onSessionEvent?.(config.realm, e),
      });
      methods.push(entry.sessions.method);
    }
    if (!methods.length) throw new DevnetError(`realm ${config.id} offers neither charge nor session`);
    const mppx = Mppx.create({ realm: config.realm, secretKey: randomBytes(32).toString("hex"), methods }) as unknown as {
      charge?: (o: Record<string, unknown>) => Parameters<typeof Mppx.toNodeListener>[0];
      session?: (o: Record<string, unknown>) => Parameters<typeof Mppx.toNodeListener>[0];
    };
    const serve = (handler: Parameters<typeof Mppx.toNodeListener>[0]): http.RequestListener => {
      const listener = Mppx.toNodeListener(handler);
      return async (req, res) => {
        const result = await listener(req, res);
        if (result.status === 402) return; // a challenge, or a session management answer (204), already written
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ realm: config.realm, path: req.url }));
      };
    };
    const charge = config.charge;
    handlers.set(config.id, {
      ...(charge && mppx.charge
        ? { charge: serve(mppx.charge({ amount: charge.amount, ...(charge.splits ? { splits: charge.splits } : {}), description: `${config.realm} request` })) }
        : {}),
      ...(config.session && mppx.session ? { session: serve(mppx.session({ amount: config.session.amount })) } : {}),
    });
    realms.set(config.id, entry);
  }

  const server = http.createServer((req, res) => {
    const [, id, kind] = (req.url ?? "/").split("?")[0]!.split("/");
    const handler = id ? handlers.get(id)?.[kind as "charge" | "session"] : undefined;
    if (!handler) {
      res.statusCode = 404;
      res.end();
      return;
    }
    Promise.resolve(handler(req, res)).catch((e: unknown) => {
      if (!res.headersSent) res.statusCode = 500;
      res.end(String((e as Error)?.message ?? e));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(p.port ?? 0, "127.0.0.1", () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  for (const r of realms.values()) {
    if (r.charge) r.chargeUrl = `${url}/${r.id}/charge`;
    if (r.session) r.sessionUrl = `${url}/${r.id}/session`;
  }
  let stopping: Promise<void> | undefined;
  return {
    url,
    realms,
    realm(id) {
      const r = realms.get(id);
      if (!r) throw new DevnetError(`no realm ${id} on ${url}`);
      return r;
    },
    stop: () =>
      (stopping ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      })),
  };
}
