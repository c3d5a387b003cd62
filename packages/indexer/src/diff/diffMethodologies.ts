import { assertMethodologyVersion, matchLogs, matchLogsV02, matchLogsV03, type MatchContext, type V02Trace, type V03Trace } from "@agent-ledger/core";
import type pg from "pg";
import { readRawLogs } from "../store/readRawLogs.ts";
import { createDiffAccumulator, diffReport, summarizeDiff } from "./summarizeDiff.ts";

/**
 * `rematch --diff A B`: matches the stored raw logs under both versions, page by page, and reports globally and per
 * entity the rows, payments and volume before and after, and why payments stop (or start) counting and why rows
 * disappear, appear or change (the `to` matcher's trace notes, v0.2 or v0.3). Reads only.
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
      // One array takes the notes of the `to` version only (a V02Trace is a V03Trace with a v0.2 note and no agentId).
      const trace: V03Trace[] = [];
      const match = (version: string, notes?: V03Trace[]) =>
        version === "v0.2"
          ? matchLogsV02(logs, options.context, notes as V02Trace[] | undefined)
          : version === "v0.3"
            ? matchLogsV03(logs, options.context, notes)
            : matchLogs(logs, options.context, version);
      summarizeDiff(acc, match(options.from), match(options.to, trace), trace);
    }
  }
  return { logs: logCount, ...diffReport(acc, options.from, options.to) };
}
