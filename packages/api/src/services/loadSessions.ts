import { decodeEscrowLog, type EscrowEvent } from "@agent-ledger/core";
import type { ServiceContext, SessionLife } from "./types.ts";

// The escrow logs of each channel: the transactions that produced a row of the channel (agent_events.channel_id, a hash
// index holding only session rows), their raw logs (the raw_logs key leads with tx_hash) emitted by a registry escrow
// with the channel in topic 1. Every methodology version's rows name the same transactions, so none is filtered out.
const SESSION_LOGS = `
WITH tx AS (SELECT DISTINCT a.channel_id, a.tx_hash FROM agent_events a WHERE a.channel_id = ANY($1::text[]))
SELECT tx.channel_id, r.address, r.topic0, r.topic1, r.topic2, r.topic3, r.data, r.tx_hash, r.log_index, r.block_number::text AS block_number,
       r.block_timestamp, e.abi, e.label, e.token_address
FROM tx
JOIN raw_logs r ON r.tx_hash = tx.tx_hash AND r.topic1 = tx.channel_id
JOIN escrows e ON e.address = r.address
ORDER BY r.block_number, r.log_index`;

/**
 * Each channel's life (SessionLife) in the order of `channelIds`; null where no escrow event of it is stored (an unknown
 * channel, or an escrow no longer in the registry). Events decode by the escrow's registered ABI; a log that does not
 * decode is left out.
 */
export async function loadSessions(ctx: ServiceContext, channelIds: readonly string[]): Promise<(SessionLife | null)[]> {
  if (channelIds.length === 0) return [];
  const { rows } = await ctx.db.query(SESSION_LOGS, [channelIds.map((c) => c.toLowerCase())]);
  const lives = new Map<string, SessionLife>();
  for (const r of rows) {
    const topics = [r.topic0, r.topic1, r.topic2, r.topic3].filter((t): t is string => t !== null);
    const event = decodeEscrowLog(
      {
        address: r.address,
        topics,
        data: r.data,
        txHash: r.tx_hash,
        logIndex: r.log_index,
        blockNumber: BigInt(r.block_number),
        blockHash: "",
        blockTimestamp: 0,
        txIndex: 0,
      },
      r.abi === "precompile" ? "precompile" : "legacy",
    );
    if (!event) continue;
    let life = lives.get(r.channel_id);
    if (!life) {
      life = {
        channelId: r.channel_id,
        escrowAddress: r.address,
        escrowLabel: r.label,
        payer: event.payer,
        payee: event.payee,
        tokenAddress: (r.token_address as string | null) ?? null,
        opened: null,
        topUps: [],
        settlements: [],
        closed: null,
        depositWei: null,
        settledWei: 0n,
        refundedWei: null,
      };
      lives.set(r.channel_id, life);
    }
    apply(life, event, { txHash: r.tx_hash, logIndex: r.log_index, ts: r.block_timestamp as Date });
  }
  return channelIds.map((c) => lives.get(c.toLowerCase()) ?? null);
}

/** Adds one decoded event to the channel's life (events arrive in chain order) and keeps its figures current. */
function apply(life: SessionLife, e: EscrowEvent, at: { txHash: string; logIndex: number; ts: Date }): void {
  switch (e.type) {
    case "channelOpened":
      life.opened = { ...at, tokenAddress: e.token, depositWei: e.deposit };
      life.tokenAddress = e.token;
      life.depositWei = e.deposit;
      break;
    case "topUp":
      life.topUps.push({ ...at, additionalDepositWei: e.additionalDeposit, newDepositWei: e.newDeposit });
      life.depositWei = e.newDeposit;
      break;
    case "settled":
      life.settlements.push({ ...at, cumulativeAmountWei: e.cumulativeAmount, deltaPaidWei: e.deltaPaid, newSettledWei: e.newSettled });
      life.settledWei = e.newSettled;
      break;
    case "channelClosed":
      life.closed = { ...at, settledToPayeeWei: e.settledToPayee, refundedToPayerWei: e.refundedToPayer };
      life.settledWei = e.settledToPayee;
      life.refundedWei = e.refundedToPayer;
      break;
    default: // closeRequested, closeRequestCancelled, channelExpired: not part of the figures shown
  }
}
