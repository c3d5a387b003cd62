import {
  LEGACY_ESCROW_TOPICS,
  matchLogsV03,
  mppFingerprint,
  parseRegistry,
  TRANSFER_TOPIC,
  TRANSFER_WITH_MEMO_TOPIC,
  type EventDraft,
  type RawLog,
} from "@agent-ledger/core";
import { createPgPool, loadMatchContext, loadRegistryIntoDb } from "@agent-ledger/db";
import { prepareBatch, writeBatch } from "@agent-ledger/indexer";
import pg from "pg";

// A methodology v0.3 ledger for the read side's tests (events.v03, e2e/explorer.v03): a registry v3 file (a service
// known by its host's serverId, one by its directory realm's, a session service, the legacy session escrow, a labelled
// client), the chain's logs of MPP charges and of one session channel's whole life (open, top-up, two settlements,
// close with a refund) written as the node returns them, matched by the real matcher (matchLogsV03) and stored by the
// indexer's own write path (prepareBatch → writeBatch). Real PostgreSQL, no devnet: the logs are the chain's shapes.

const pad = (a: string) => `0x${a.slice(2).padStart(64, "0")}`;
const word = (n: bigint) => n.toString(16).padStart(64, "0");
const addressWord = (a: string) => a.slice(2).padStart(64, "0");

export const V03 = {
  PATH_USD: "0x20c0000000000000000000000000000000000000",
  USDC_E: "0x20c000000000000000000000b9537d11c60e8b50",
  AGENT: "0x00000000000000000000000000000000000a6e03",
  GATEWAY: "0xca4e835f803cb0b7c428222b3a3b98518d4779fe",
  DUNE: "0x0000000000000000000000000000000000d0e001",
  PAYEE: "0x0000000000000000000000000000000000a11ce3",
  ESCROW: "0x33b901018174ddabe4841042ab76ba85d4e24f25",
  FAL_HOST: "fal.mpp.tempo.xyz",
  DUNE_REALM: "dune.example.xyz",
  /** clientId of the labelled client, and of one the registry does not label. */
  CLIENT: mppFingerprint("demo-agent-alpha"),
  CLIENT_UNLABELLED: mppFingerprint("someone-else"),
  CLIENT_LABEL: "Demo agent Alpha",
  CHANNEL: `0x${"c4".repeat(32)}`,
  /** The channel's life: deposit 5 + top-up 2 = 7; settled 3, then 4.5, closed at 6 (a last 1.5 paid); 1 refunded. */
  DEPOSIT: 5_000_000n,
  TOP_UP: 2_000_000n,
  SETTLE_1: 3_000_000n,
  SETTLE_2: 4_500_000n,
  CLOSE_AT: 6_000_000n,
  REFUND: 1_000_000n,
  FAL_CHARGE: 1_250_000n,
  DUNE_CHARGE: 420_000n,
} as const;

export const V03_REGISTRY = {
  registry_version: 3,
  network: "devnet",
  tokens: [
    { address: V03.PATH_USD, symbol: "pathUSD", decimals: 6, currency: "USD" },
    { address: V03.USDC_E, symbol: "USDC.e", decimals: 6, currency: "USD" },
  ],
  entities: [
    { id: "v3-agent", label: "V3 agent", category: "agent", wallets: [V03.AGENT] },
    { id: "tempo-gateway-mpp", label: "Tempo MPP gateway", category: "gateway", wallets: [V03.GATEWAY] },
    {
      id: "fal-mpp",
      label: "fal.ai",
      category: "service",
      wallets: [],
      server_ids: [{ fingerprint: mppFingerprint(V03.FAL_HOST), from: "host", value: V03.FAL_HOST }],
    },
    {
      id: "dune-mpp",
      label: "Dune",
      category: "service",
      wallets: [V03.DUNE],
      server_ids: [{ fingerprint: mppFingerprint(V03.DUNE_REALM), from: "realm", value: V03.DUNE_REALM }],
    },
    { id: "openrouter-mpp", label: "OpenRouter", category: "service", wallets: [V03.PAYEE] },
  ],
  escrows: [{ id: "mpp-session-escrow", address: V03.ESCROW, abi: "legacy", label: "MPP session escrow (TempoStreamChannel)", token: V03.USDC_E }],
  client_labels: [{ fingerprint: V03.CLIENT, label: V03.CLIENT_LABEL }],
  address_labels: [],
  fingerprint_labels: [],
  settlement_contracts: [],
};

/** MPP attribution memo: tag, version 1, serverId, clientId (null: anonymous), nonce. */
const mppMemo = (serverId: string, clientId: string | null, nonce: number) =>
  `0xef1ed71201${serverId.slice(2)}${clientId ? clientId.slice(2) : "00".repeat(10)}${nonce.toString(16).padStart(14, "0")}`;

export interface V03Ledger {
  logs: RawLog[];
  rows: EventDraft[];
  /** The transactions of the channel's life, in order: open, top-up, settle 1, settle 2, close. */
  sessionTxs: { hash: string; ts: Date }[];
}

/** Loads the registry, writes the logs and their v0.3 rows; rollups hold v0.3. `now`: the newest block's time (s). */
export async function seedV03Ledger(databaseUrl: string, now = Math.floor(Date.now() / 1000)): Promise<V03Ledger> {
  const registryDb = createPgPool(databaseUrl, { max: 1 });
  await loadRegistryIntoDb(registryDb, parseRegistry(V03_REGISTRY), "registry:v03-test.json");
  const ctx = await loadMatchContext(registryDb, "https://explore.test");
  await registryDb.end();

  const logs: RawLog[] = [];
  const sessionTxs: V03Ledger["sessionTxs"] = [];
  let block = 0;
  const tx = (ts: number, body: Pick<RawLog, "address" | "topics" | "data">[]) => {
    block++;
    const hash = `0x${block.toString(16).padStart(64, "3")}`;
    const at = { blockNumber: BigInt(block), blockHash: `0x${block.toString(16).padStart(64, "b")}`, blockTimestamp: ts, txHash: hash, txIndex: 0 };
    body.forEach((l, logIndex) => logs.push({ ...at, logIndex, ...l }));
    return { hash, ts: new Date(ts * 1000) };
  };
  const transfer = (token: string, from: string, to: string, amount: bigint) => ({
    address: token,
    topics: [TRANSFER_TOPIC, pad(from), pad(to)],
    data: `0x${word(amount)}`,
  });
  const charge = (token: string, from: string, to: string, amount: bigint, memo: string) => [
    transfer(token, from, to, amount),
    { address: token, topics: [TRANSFER_WITH_MEMO_TOPIC, pad(from), pad(to), memo], data: `0x${word(amount)}` },
  ];
  const escrowEvent = (topic0: string, data: string) => ({
    address: V03.ESCROW,
    topics: [topic0, V03.CHANNEL, pad(V03.AGENT), pad(V03.PAYEE)],
    data: `0x${data}`,
  });
  const T = LEGACY_ESCROW_TOPICS;
  const t0 = now - 6 * 3600;

  // charges: fal.ai paid at the gateway's address and named by its host's serverId; Dune at its own wallet, named by its realm's
  tx(t0, charge(V03.PATH_USD, V03.AGENT, V03.GATEWAY, V03.FAL_CHARGE, mppMemo(mppFingerprint(V03.FAL_HOST), V03.CLIENT, 1)));
  tx(t0 + 600, charge(V03.PATH_USD, V03.AGENT, V03.DUNE, V03.DUNE_CHARGE, mppMemo(mppFingerprint(V03.DUNE_REALM), V03.CLIENT_UNLABELLED, 2)));
  // the session: open (deposit 5), top-up (+2 = 7), settle at 3, settle at 4.5, close at 6 (1.5 paid, 1 refunded)
  const USDC = V03.USDC_E;
  sessionTxs.push(
    tx(t0 + 1200, [
      transfer(USDC, V03.AGENT, V03.ESCROW, V03.DEPOSIT),
      escrowEvent(T.channelOpened, `${addressWord(USDC)}${addressWord(V03.AGENT)}${"5a".repeat(32)}${word(V03.DEPOSIT)}`),
    ]),
  );
  sessionTxs.push(
    tx(t0 + 1800, [transfer(USDC, V03.AGENT, V03.ESCROW, V03.TOP_UP), escrowEvent(T.topUp, `${word(V03.TOP_UP)}${word(V03.DEPOSIT + V03.TOP_UP)}`)]),
  );
  sessionTxs.push(
    tx(t0 + 2400, [
      transfer(USDC, V03.ESCROW, V03.PAYEE, V03.SETTLE_1),
      escrowEvent(T.settled, `${word(V03.SETTLE_1)}${word(V03.SETTLE_1)}${word(V03.SETTLE_1)}`),
    ]),
  );
  sessionTxs.push(
    tx(t0 + 3000, [
      transfer(USDC, V03.ESCROW, V03.PAYEE, V03.SETTLE_2 - V03.SETTLE_1),
      escrowEvent(T.settled, `${word(V03.SETTLE_2)}${word(V03.SETTLE_2 - V03.SETTLE_1)}${word(V03.SETTLE_2)}`),
    ]),
  );
  sessionTxs.push(
    tx(t0 + 3600, [
      transfer(USDC, V03.ESCROW, V03.PAYEE, V03.CLOSE_AT - V03.SETTLE_2),
      transfer(USDC, V03.ESCROW, V03.AGENT, V03.REFUND),
      escrowEvent(T.channelClosed, `${word(V03.CLOSE_AT)}${word(V03.REFUND)}`),
    ]),
  );

  const rows = matchLogsV03(logs, ctx);
  const writer = new pg.Client({ connectionString: databaseUrl });
  await writer.connect();
  try {
    await writer.query(
      "INSERT INTO rollups_version (id, methodology_version) VALUES (true, 'v0.3') ON CONFLICT (id) DO UPDATE SET methodology_version = 'v0.3'",
    );
    await writeBatch(writer, {
      streamId: "v03",
      chainId: 31337,
      startBlock: 1n,
      previousBlock: 0n,
      toBlock: BigInt(block),
      toBlockHash: logs.at(-1)!.blockHash,
      prepared: prepareBatch(logs, rows),
    });
  } finally {
    await writer.end();
  }
  return { logs, rows, sessionTxs };
}
