import type pg from "pg";

export interface Checkpoint {
  startBlock: bigint;
  lastBlock: bigint;
}

export async function readCheckpoint(client: pg.ClientBase, streamId: string): Promise<Checkpoint | null> {
  const { rows } = await client.query("SELECT start_block, last_block FROM indexer_checkpoints WHERE id = $1", [streamId]);
  if (rows.length === 0) return null;
  return { startBlock: BigInt(rows[0].start_block), lastBlock: BigInt(rows[0].last_block) };
}
