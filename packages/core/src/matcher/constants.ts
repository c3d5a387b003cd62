/** topic0 of TIP-20 `Transfer(address indexed from, address indexed to, uint256 amount)`. */
export const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
/** topic0 of TIP-20 `TransferWithMemo(address indexed from, address indexed to, uint256 amount, bytes32 indexed memo)`. */
export const TRANSFER_WITH_MEMO_TOPIC = "0x57bc7354aa85aed339e000bccffabbc529466af35f0772c8f8ee1145927de7f0";
/**
 * topic0 of `Settlement(bytes32 indexed sessionRef, address indexed serviceProvider, address indexed gateway, uint256 amountIn, uint256 amountOut)`
 * = keccak256 of that signature. Our devnet escrow emits this one.
 */
export const SETTLEMENT_TOPIC = "0x1c5bd824a83e6a261a40ebe83140faad843f622f4364a435f32d10ff9fdedd3f";
/**
 * topic0 that the public methodology of an existing observer reports for the mainnet gateway escrow
 * (0x33b9…4f25), read with the same layout (topic 2 = provider). It is keccak256 of
 * `ChannelClosed(bytes32,address,address,uint256,uint256)` (Tempo stream channels: topic 2 = payer,
 * topic 3 = payee), so the provider reading is unverified on mainnet: see docs/methodology.md.
 */
export const SETTLEMENT_TOPIC_MAINNET = "0x92ed5fe0fe56b3f4185e688efb342e92a4492b9df29ad5de596c44e64d097b51";
/** Every topic0 the indexer asks the node for. */
export const INDEXED_TOPICS = [TRANSFER_TOPIC, TRANSFER_WITH_MEMO_TOPIC, SETTLEMENT_TOPIC, SETTLEMENT_TOPIC_MAINNET] as const;

/** Tempo's FeeManager precompile: every transaction's fee is a TIP-20 Transfer to it. */
export const FEE_MANAGER_ADDRESS = "0xfeec000000000000000000000000000000000000";

/** First five bytes of a gateway (MPP) memo; bytes 5–14 are the per-service fingerprint. */
export const GATEWAY_MEMO_MAGIC = "0xef1ed71201";

/** The zero address: a TIP-20 Transfer from it is a mint, to it a burn. */
export const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";

/** Registry categories (address labels or entities) that mark a funding source under methodology v0.2. */
export const FUNDING_CATEGORIES: ReadonlySet<string> = new Set(["treasury", "exchange", "faucet"]);

/** The entity category of a gateway: only its wallets can make a v0.2 settlement count. */
export const GATEWAY_CATEGORY = "gateway";

/**
 * Event kinds written by the matcher (see docs/methodology.md). v0.1 writes only the first three;
 * v0.2 adds settlement legs and funding moves, which are rows but not activity.
 */
export const EVENT_KINDS = ["payment_sent", "payment_received", "fee_paid", "settlement_sent", "settlement_received", "funding_sent", "funding_received"] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** Kinds that are activity: counted in txCount / amountSumWei, trends and top lists (every version). */
export const ACTIVITY_KINDS: ReadonlySet<string> = new Set(["payment_sent", "payment_received"]);
