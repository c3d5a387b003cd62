import { Redis } from "ioredis";
import type { Logger } from "pino";

/**
 * The worker's one Redis connection (BullMQ queues and workers share it), connected and answering PING. Connection
 * errors are logged at most every 5 s (ioredis reconnects on its own).
 */
export async function connectRedis(redisUrl: string, log: Logger): Promise<Redis> {
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null, lazyConnect: true });
  let lastRedisError = 0;
  connection.on("error", (error) => {
    if (Date.now() - lastRedisError > 5_000) log.warn({ err: error }, "Redis connection error");
    lastRedisError = Date.now();
  });
  await connection.connect();
  await connection.ping();
  return connection;
}
