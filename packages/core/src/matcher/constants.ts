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

/**
 * topic0s of the legacy MPP session escrow `TempoStreamChannel` (mainnet 0x33b9…4f25): its events as mppx
 * `src/tempo/legacy/session/escrow.abi.ts` and tempoxyz/tempo `tips/ref-impls/src/interfaces/ITempoStreamChannel.sol`
 * declare them (amounts uint256). Every event has topic1 = channelId, topic2 = payer, topic3 = payee.
 * `channelClosed` is the same id as SETTLEMENT_TOPIC_MAINNET.
 */
export const LEGACY_ESCROW_TOPICS = {
  channelOpened: "0xcd6e60364f8ee4c2b0d62afc07a1fb04fd267ce94693f93f8f85daaa099b5c94",
  topUp: "0xe96f4c65929984be10da5cfd4f1b95b417d798f26d5e59e6b1d1077fcd06343e",
  settled: "0xe0b97d7c69d7aa21437d2a75a40b65369532d3f7eb8f64f29c37be14be6c9848",
  closeRequested: "0xf5a36fc00a96cbb9cf1f8f59299165e1d8ffffe94396d82904b4da524d16bbce",
  closeRequestCancelled: "0x6bbcbc59913c43e567847487b95410b0b65cf253531b1c6505b21f8359c838fe",
  channelClosed: "0x92ed5fe0fe56b3f4185e688efb342e92a4492b9df29ad5de596c44e64d097b51",
  channelExpired: "0x954713a76f662e722c13c5c6b321bbf47433dd95a8c689ed3e6ffcfa1ace25f4",
} as const;

/**
 * topic0s of the TIP-1034 channel reserve precompile (0x4d50…0000): its events as tempoxyz/tempo
 * `crates/contracts/src/precompiles/tip20_channel_reserve.rs` declares them (amounts uint96, ABI-encoded as 32-byte
 * words). CloseRequested and CloseRequestCancelled keep the legacy signatures, hence the legacy ids.
 */
export const PRECOMPILE_ESCROW_TOPICS = {
  channelOpened: "0xdebaba36f0e9c7978f536fed432d9360b1f9646d7ca88531c34c3eae43f154a7",
  topUp: "0x2a96f534665f3150977dd4c35d91373c74030288edbb3cf83c527dd25012364f",
  settled: "0x11c4e4c79ad8802431b44c15047ed1ddb82fbfc1abd452c765f7ee3990df1399",
  closeRequested: "0xf5a36fc00a96cbb9cf1f8f59299165e1d8ffffe94396d82904b4da524d16bbce",
  closeRequestCancelled: "0x6bbcbc59913c43e567847487b95410b0b65cf253531b1c6505b21f8359c838fe",
  channelClosed: "0x5613aed96d5bf39f928408dbe1d4143490b9bb5957eac2dd8e69b5dc4b2206e6",
} as const;

/** The escrow events methodology v0.3 reads (the ones that move money: open, top-up, settle, close), both escrows. */
export const SESSION_ESCROW_TOPICS = [
  LEGACY_ESCROW_TOPICS.channelOpened,
  LEGACY_ESCROW_TOPICS.topUp,
  LEGACY_ESCROW_TOPICS.settled,
  LEGACY_ESCROW_TOPICS.channelClosed,
  PRECOMPILE_ESCROW_TOPICS.channelOpened,
  PRECOMPILE_ESCROW_TOPICS.topUp,
  PRECOMPILE_ESCROW_TOPICS.settled,
  PRECOMPILE_ESCROW_TOPICS.channelClosed,
] as const;

/**
 * Every topic0 the indexer asks the node for: TIP-20 transfers, the settlement ids (v0.1/v0.2), and the session
 * escrow events v0.3 reads (the legacy ChannelClosed is SETTLEMENT_TOPIC_MAINNET, listed once).
 */
export const INDEXED_TOPICS = [
  TRANSFER_TOPIC,
  TRANSFER_WITH_MEMO_TOPIC,
  SETTLEMENT_TOPIC,
  SETTLEMENT_TOPIC_MAINNET,
  LEGACY_ESCROW_TOPICS.channelOpened,
  LEGACY_ESCROW_TOPICS.topUp,
  LEGACY_ESCROW_TOPICS.settled,
  PRECOMPILE_ESCROW_TOPICS.channelOpened,
  PRECOMPILE_ESCROW_TOPICS.topUp,
  PRECOMPILE_ESCROW_TOPICS.settled,
  PRECOMPILE_ESCROW_TOPICS.channelClosed,
] as const;

/** Tempo's FeeManager precompile: every transaction's fee is a TIP-20 Transfer to it. */
export const FEE_MANAGER_ADDRESS = "0xfeec000000000000000000000000000000000000";

/** First five bytes of a gateway (MPP) memo; bytes 5–14 are the per-service fingerprint. */
export const GATEWAY_MEMO_MAGIC = "0xef1ed71201";

/**
 * MPP attribution memo (mppx `src/tempo/Attribution.ts`): bytes 0..3 tag = keccak256("mpp")[0..3], byte 4 version.
 * Together they are GATEWAY_MEMO_MAGIC (v0.1/v0.2 read the same five bytes).
 */
export const MPP_MEMO_TAG = "0xef1ed712";
export const MPP_MEMO_VERSION = "01";

/** TIP-1022 virtual addresses: bytes 4..13 of the address are this magic (tempoxyz/tempo `tips/tip-1022.md`). */
export const VIRTUAL_ADDRESS_MAGIC = "fdfdfdfdfdfdfdfdfdfd";

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
export const EVENT_KINDS = [
  "payment_sent",
  "payment_received",
  "fee_paid",
  "settlement_sent",
  "settlement_received",
  "funding_sent",
  "funding_received",
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** Kinds that are activity: counted in txCount / amountSumWei, trends and top lists (every version). */
export const ACTIVITY_KINDS: ReadonlySet<string> = new Set(["payment_sent", "payment_received"]);
