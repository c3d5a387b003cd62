import type { Address, Hex } from "viem";

/** Chain id of `anvil --network tempo` (viem's tempoLocalnet says 1337; anvil uses 31337). */
export const DEVNET_CHAIN_ID = 31337;

/** TIP-20 precompile tokens present at genesis on the devnet (6 decimals each). */
export const PATH_USD = "0x20c0000000000000000000000000000000000000" as const satisfies Address;
export const ALPHA_USD = "0x20c0000000000000000000000000000000000001" as const satisfies Address;
export const BETA_USD = "0x20c0000000000000000000000000000000000002" as const satisfies Address;
export const THETA_USD = "0x20c0000000000000000000000000000000000003" as const satisfies Address;
export const TOKENS = { pathUSD: PATH_USD, AlphaUSD: ALPHA_USD, BetaUSD: BETA_USD, ThetaUSD: THETA_USD } as const;
export const TOKEN_DECIMALS = 6;

/** Every transaction pays its fee as a TIP-20 Transfer(payer → FeeManager). */
export const FEE_MANAGER = "0xfeec000000000000000000000000000000000000" as const satisfies Address;
export const ACCOUNT_KEYCHAIN = "0xaaaaaaaa00000000000000000000000000000000" as const satisfies Address;
export const TIP20_FACTORY = "0x20fc000000000000000000000000000000000000" as const satisfies Address;

/** topic0 of TIP-20 events and of the gateway escrow's settlement event. */
export const TOPICS = {
  Transfer: "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef",
  TransferWithMemo: "0x57bc7354aa85aed339e000bccffabbc529466af35f0772c8f8ee1145927de7f0",
  /** keccak256('Settlement(bytes32,address,address,uint256,uint256)'): what the devnet GatewayEscrow emits. */
  Settlement: "0x1c5bd824a83e6a261a40ebe83140faad843f622f4364a435f32d10ff9fdedd3f",
  /**
   * topic0 reported for the mainnet escrow 0x33b9…4f25 = keccak256('ChannelClosed(bytes32,address,address,uint256,uint256)')
   * (the MPP payment-channel escrow's ChannelClosed(channelId, payer, payee, settledToPayee, refundedToPayer)).
   */
  SettlementMainnet: "0x92ed5fe0fe56b3f4185e688efb342e92a4492b9df29ad5de596c44e64d097b51",
} as const satisfies Record<string, Hex>;

/** The ten well-known anvil dev accounts (mnemonic "test test … junk"); each holds 2^64-1 of every token. */
export const DEV_PRIVATE_KEYS = [
  "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
  "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
  "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a",
  "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba",
  "0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e",
  "0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356",
  "0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97",
  "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6",
] as const satisfies readonly Hex[];
