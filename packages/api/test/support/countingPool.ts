import type pg from "pg";

/**
 * `pool` seen through a proxy that counts the SQL statements sent with `query`; `failNext(text)` fails the next
 * statement containing `text` (with a message that must never reach a client); `hold(promise)` makes every statement
 * wait for the promise first, to keep an execution in flight (`hold(null)` ends it).
 */
export function countingPool(pool: pg.Pool): {
  db: pg.Pool;
  count: () => number;
  failNext: (match: string) => void;
  hold: (until: Promise<void> | null) => void;
} {
  let count = 0;
  let fail: string | null = null;
  let held: Promise<void> | null = null;
  const db = new Proxy(pool, {
    get(target, prop, receiver) {
      if (prop === "query")
        return async (...args: unknown[]) => {
          count++;
          const text = typeof args[0] === "string" ? args[0] : ((args[0] as { text?: string }).text ?? "");
          if (held) await held;
          if (fail !== null && text.includes(fail)) {
            fail = null;
            throw new Error("secret connection detail");
          }
          return (target.query as (...a: unknown[]) => unknown)(...args);
        };
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { db, count: () => count, failNext: (match) => void (fail = match), hold: (until) => void (held = until) };
}
