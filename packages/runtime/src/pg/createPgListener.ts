import { getBackoffDelay } from "@agent-ledger/core";
import pg from "pg";

/** The logging the listener needs (a pino logger fits). */
export interface ListenerLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface PgListener {
  /** Resolves once LISTEN is active on every channel and the first `onConnect` has finished (or on close). */
  ready: Promise<void>;
  /** Whether a LISTEN connection is up now. */
  isListening(): boolean;
  /** Connections made after the first (reconnects). */
  reconnects(): number;
  close(): Promise<void>;
}

export interface PgListenerOptions {
  channels: readonly string[];
  /** A new, unconnected client for each (re)connect; or give `databaseUrl`. */
  client?: () => pg.Client;
  databaseUrl?: string;
  applicationName?: string;
  onNotification: (channel: string, payload: string) => void;
  /**
   * Runs after LISTEN is active on each (re)connect, before `ready` resolves the first time: the caller catches up on
   * whatever was NOTIFYed while it was not listening. A throw counts as a failed connection (closed, retried).
   */
  onConnect?: (info: { first: boolean }) => void | Promise<void>;
  log: ListenerLog;
  /** Reconnect delays: core getBackoffDelay with these bounds, started over after a connection that was up. */
  backoff?: { baseMs?: number; maxMs?: number };
  /** Logged with each message, to tell listeners apart. */
  name?: string;
}

/**
 * The one reconnecting PostgreSQL LISTEN: a dedicated connection LISTENing on `channels`; when it drops or cannot be
 * made, it is tried again after a backoff (core getBackoffDelay, jittered) until `close()`. NOTIFYs sent while no
 * connection was up are lost, so `onConnect` runs after each (re)connect for the caller to catch up.
 */
export function createPgListener(options: PgListenerOptions): PgListener {
  const name = options.name ?? "pg-listener";
  const newClient = options.client ?? (() => new pg.Client({ connectionString: options.databaseUrl, application_name: options.applicationName ?? name }));
  let closed = false;
  let client: pg.Client | null = null;
  let connections = 0;
  let listening = false;
  let sleeping: { timer: NodeJS.Timeout; resolve: () => void } | null = null;
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  function sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      sleeping = { timer: setTimeout(() => ((sleeping = null), resolve()), ms), resolve };
    });
  }

  /** One connection, from connect to its end: resolves when it is lost (or closed), rejects if it never got up. */
  async function runConnection(): Promise<void> {
    const c = newClient();
    client = c;
    const lost = new Promise<Error | null>((resolve) => {
      c.once("error", (error) => resolve(error));
      c.once("end", () => resolve(null));
    });
    c.on("error", () => {}); // the first error ends this connection (above); later ones are the same failure
    c.on("notification", (n) => options.onNotification(n.channel, n.payload ?? ""));
    try {
      await c.connect();
      for (const channel of options.channels) await c.query(`LISTEN "${channel.replace(/"/g, '""')}"`);
      if (closed) return;
      await options.onConnect?.({ first: connections === 0 });
      connections++;
      listening = true;
      markReady();
    } catch (error) {
      await c.end().catch(() => {});
      throw error;
    }
    const reason = await lost;
    listening = false;
    if (!closed) options.log.warn({ err: reason?.message, listener: name }, "LISTEN connection lost");
    await c.end().catch(() => {});
  }

  const loop = (async () => {
    let attempt = 0;
    while (!closed) {
      const before = connections;
      try {
        await runConnection();
      } catch (error) {
        if (!closed) options.log.warn({ err: (error as Error).message, listener: name }, "cannot LISTEN; retrying");
      }
      client = null;
      if (closed) break;
      if (connections > before) attempt = 0; // it was up: start the backoff over
      await sleep(getBackoffDelay(++attempt, { baseMs: options.backoff?.baseMs ?? 100, maxMs: options.backoff?.maxMs ?? 10_000, random: Math.random() }));
    }
  })();

  return {
    ready,
    isListening: () => listening,
    reconnects: () => Math.max(0, connections - 1),
    async close() {
      if (closed) return;
      closed = true;
      listening = false;
      markReady();
      if (sleeping) {
        clearTimeout(sleeping.timer);
        sleeping.resolve();
      }
      await client?.end().catch(() => {});
      // a connection attempt to an unreachable server may not end promptly: do not hold the shutdown for it
      await Promise.race([loop, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
    },
  };
}
