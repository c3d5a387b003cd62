import { assertMethodologyVersion, matchLogs, matchLogsV02, type MatchContext, type V02Trace } from "@agent-ledger/core";
import type pg from "pg";
import { readRawLogs } from "../store/readRawLogs.ts";
import { createDiffAccumulator, diffReport, summarizeDiff } from "./summarizeDiff.ts";

/**
 * `rematch --diff A B`: matches the stored raw logs under both versions, page by page, and reports globally and per
 * entity the rows, payments and volume before and after, and why payments stop (or start) counting. Reads only.
 */
export async function diffMethodologies(
  client: pg.ClientBase,
  options: { from: string; to: string; context: MatchContext; pageBlocks?: number; fromBlock?: bigint; toBlock?: bigint },
) {
  assertMethodologyVersion(options.from);
  assertMethodologyVersion(options.to);
  const acc = createDiffAccumulator();
  const pageBlocks = BigInt(options.pageBlocks ?? 5_000);
  const bounds = await client.query("SELECT min(block_number)::text AS lo, max(block_number)::text AS hi FROM raw_logs");
  let logCount = 0;
  if (bounds.rows[0].lo !== null) {
    const lo = options.fromBlock ?? BigInt(bounds.rows[0].lo);
    const hi = options.toBlock ?? BigInt(bounds.rows[0].hi);
    for (let from = lo; from <= hi; from += pageBlocks) {
      const to = from + pageBlocks - 1n < hi ? from + pageBlocks - 1n : hi;
      const logs = await readRawLogs(client, from, to);
      logCount += logs.length;
      const trace: V02Trace[] = [];
      const match = (version: string) => (version === "v0.2" ? matchLogsV02(logs, options.context, trace) : matchLogs(logs, options.context, version));
      summarizeDiff(acc, match(options.from), match(options.to), options.to === "v0.2" ? trace : []);
    }
  }
  return { logs: logCount, ...diffReport(acc, options.from, options.to) };
}
