import { getBackoffDelay } from "@agent-ledger/core";
import pg from "pg";
import type { Logger } from "pino";

export interface PgListener {
  /** Resolves once LISTEN is active on every channel (first connection). */
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * A dedicated connection LISTENing on `channels`, reconnecting with backoff when it drops. After each
 * (re)connect `onConnect` runs, so the caller can catch up on whatever was NOTIFYed while it was down.
 */
export function createListener(options: {
  databaseUrl: string;
  channels: readonly string[];
  onNotification: (channel: string, payload: string) => void;
  onConnect?: () => void;
  log: Logger;
  applicationName?: string;
}): PgListener {
  let closed = false;
  let client: pg.Client | null = null;
  let retryTimer: NodeJS.Timeout | null = null;
  let attempt = 0;
  let resolveReady!: () => void;
  const ready = new Promise<void>((r) => (resolveReady = r));

  async function connect(): Promise<void> {
    if (closed) return;
    const c = new pg.Client({ connectionString: options.databaseUrl, application_name: options.applicationName ?? "agent-ledger-worker-listen" });
    c.on("notification", (n) => options.onNotification(n.channel, n.payload ?? ""));
    c.on("error", (error) => {
      options.log.warn({ err: error }, "LISTEN connection error");
      scheduleReconnect(c);
    });
    c.on("end", () => scheduleReconnect(c));
    try {
      await c.connect();
      for (const ch of options.channels) await c.query(`LISTEN "${ch.replace(/"/g, '""')}"`);
      if (closed) {
        await c.end().catch(() => {});
        return;
      }
      client = c;
      attempt = 0;
      resolveReady();
      options.onConnect?.();
    } catch (error) {
      options.log.warn({ err: error }, "LISTEN connection failed; retrying");
      scheduleReconnect(c);
    }
  }

  function scheduleReconnect(c: pg.Client): void {
    if (closed || retryTimer || (client !== null && client !== c)) return;
    client = null;
    c.removeAllListeners("end");
    c.end().catch(() => {});
    const delay = getBackoffDelay(++attempt, { baseMs: 100, maxMs: 10_000, random: Math.random() });
    retryTimer = setTimeout(() => {
      retryTimer = null;
      void connect();
    }, delay);
  }

  void connect();
  return {
    ready,
    async close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      resolveReady();
      const c = client;
      client = null;
      if (c) {
        c.removeAllListeners("end");
        await c.end().catch(() => {});
      }
    },
  };
}
