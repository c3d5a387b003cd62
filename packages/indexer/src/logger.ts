import { pino } from "pino";

/** Structured JSON logs on stdout. Secrets never go into log fields. */
export function createLogger(name: string, level = process.env.LOG_LEVEL ?? "info") {
  return pino({ name, level, base: { service: name }, timestamp: pino.stdTimeFunctions.isoTime });
}
