import { toEventSelector } from "viem";
import { Addresses } from "viem/tempo";
import { describe, expect, it } from "vitest";
import {
  FEE_MANAGER_ADDRESS,
  GATEWAY_MEMO_MAGIC,
  INDEXED_TOPICS,
  MPP_MEMO_TAG,
  MPP_MEMO_VERSION,
  SESSION_ESCROW_TOPICS,
  SETTLEMENT_TOPIC,
  SETTLEMENT_TOPIC_MAINNET,
  TRANSFER_TOPIC,
  TRANSFER_WITH_MEMO_TOPIC,
} from "./constants.ts";

// topic0 = keccak256 of the event signature: computed here from the signatures, and written out as literals.
describe("matcher constants", () => {
  it("Transfer and TransferWithMemo topics are those of the TIP-20 events", () => {
    expect(TRANSFER_TOPIC).toBe("0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef");
    expect(TRANSFER_TOPIC).toBe(toEventSelector("Transfer(address,address,uint256)"));
    expect(TRANSFER_WITH_MEMO_TOPIC).toBe("0x57bc7354aa85aed339e000bccffabbc529466af35f0772c8f8ee1145927de7f0");
    expect(TRANSFER_WITH_MEMO_TOPIC).toBe(toEventSelector("TransferWithMemo(address,address,uint256,bytes32)"));
  });
  it("the devnet escrow's Settlement topic, and the mainnet topic (keccak256 of ChannelClosed)", () => {
    expect(SETTLEMENT_TOPIC).toBe("0x1c5bd824a83e6a261a40ebe83140faad843f622f4364a435f32d10ff9fdedd3f");
    expect(SETTLEMENT_TOPIC).toBe(toEventSelector("Settlement(bytes32,address,address,uint256,uint256)"));
    expect(SETTLEMENT_TOPIC_MAINNET).toBe("0x92ed5fe0fe56b3f4185e688efb342e92a4492b9df29ad5de596c44e64d097b51");
    expect(SETTLEMENT_TOPIC_MAINNET).toBe(toEventSelector("ChannelClosed(bytes32,address,address,uint256,uint256)"));
  });
  it("the indexer asks for the transfers, the two settlement ids and the session escrow events v0.3 reads, each once", () => {
    expect([...INDEXED_TOPICS].sort()).toEqual(
      [...new Set([TRANSFER_TOPIC, TRANSFER_WITH_MEMO_TOPIC, SETTLEMENT_TOPIC, SETTLEMENT_TOPIC_MAINNET, ...SESSION_ESCROW_TOPICS])].sort(),
    );
    expect(INDEXED_TOPICS.length).toBe(11);
  });
  it("the FeeManager precompile and the gateway memo magic", () => {
    expect(FEE_MANAGER_ADDRESS).toBe("0xfeec000000000000000000000000000000000000");
    expect(FEE_MANAGER_ADDRESS).toBe(Addresses.feeManager.toLowerCase());
    expect(GATEWAY_MEMO_MAGIC).toBe("0xef1ed71201");
    expect(`${MPP_MEMO_TAG}${MPP_MEMO_VERSION}`).toBe(GATEWAY_MEMO_MAGIC); // v0.3 reads the same five bytes
  });
});
