import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { SessionLegacy } from "mppx/tempo";
import {
  BaseError,
  ContractFunctionRevertedError,
  encodeFunctionData,
  hashDomain,
  hashTypedData,
  keccak256,
  parseEventLogs,
  serializeCompactSignature,
  parseSignature,
  signatureToCompactSignature,
  stringToHex,
  toEventSelector,
  zeroAddress,
  zeroHash,
  type Address,
  type Hash,
  type Hex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { Abis } from "viem/tempo";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDevnetClient, type DevnetClient } from "../src/chain.ts";
import { DEV_PRIVATE_KEYS, DEVNET_CHAIN_ID, PATH_USD } from "../src/constants.ts";
import { compileContract } from "../src/contracts/compileContract.ts";
import { renderArtifact } from "../src/contracts/renderArtifact.ts";
import { abi, bytecode } from "../src/contracts/StreamChannelEscrow.artifact.ts";
import { createSenderPool } from "../src/createSenderPool.ts";
import type { TxSender } from "../src/createTxSender.ts";
import { mppDevnetClientResolver } from "../src/mpp/mppDevnetChain.ts";
import { rpcRequest } from "../src/rpcRequest.ts";
import { startAnvil, type AnvilInstance } from "../src/startAnvil.ts";

const { Chain, Channel, Voucher } = SessionLegacy.Session;

/** topic0 of every legacy escrow event, as /work/shared/reference/tempo-mpp/README.md lists them (recomputed there with viem). */
const REFERENCE_TOPICS = {
  ChannelOpened: "0xcd6e60364f8ee4c2b0d62afc07a1fb04fd267ce94693f93f8f85daaa099b5c94",
  TopUp: "0xe96f4c65929984be10da5cfd4f1b95b417d798f26d5e59e6b1d1077fcd06343e",
  Settled: "0xe0b97d7c69d7aa21437d2a75a40b65369532d3f7eb8f64f29c37be14be6c9848",
  CloseRequested: "0xf5a36fc00a96cbb9cf1f8f59299165e1d8ffffe94396d82904b4da524d16bbce",
  CloseRequestCancelled: "0x6bbcbc59913c43e567847487b95410b0b65cf253531b1c6505b21f8359c838fe",
  ChannelClosed: "0x92ed5fe0fe56b3f4185e688efb342e92a4492b9df29ad5de596c44e64d097b51",
  ChannelExpired: "0x954713a76f662e722c13c5c6b321bbf47433dd95a8c689ed3e6ffcfa1ace25f4",
} as const;

/** An ABI item without `internalType` (a Solidity naming detail), keys sorted: two ABIs compare by what the wire sees. */
const canonical = (x: unknown): unknown => {
  if (Array.isArray(x)) return x.map(canonical);
  if (x && typeof x === "object")
    return Object.fromEntries(
      Object.entries(x)
        .filter(([k]) => k !== "internalType")
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, canonical(v)]),
    );
  return x;
};
const byName = (items: readonly { type: string; name?: string }[]) => Object.fromEntries(items.map((x) => [`${x.type} ${x.name ?? ""}`, canonical(x)]));

describe("StreamChannelEscrow artifact and interface", () => {
  it("is exactly what scripts/compileContracts.ts produces from contracts/StreamChannelEscrow.sol (no drift)", () => {
    const committed = readFileSync(fileURLToPath(new URL("../src/contracts/StreamChannelEscrow.artifact.ts", import.meta.url)), "utf8");
    expect(renderArtifact("StreamChannelEscrow", compileContract("StreamChannelEscrow"))).toBe(committed);
  });

  it("has exactly the functions, views, events and errors of mppx 0.11.0 legacy escrow.abi (same types, indexed fields, names)", () => {
    expect(byName(abi)).toEqual(byName(Chain.escrowAbi));
  });

  it("each event's topic0 equals the reference README's value for MPP's legacy escrow", () => {
    const events = abi.filter((x) => x.type === "event");
    expect(events.map((e) => e.name).sort()).toEqual(Object.keys(REFERENCE_TOPICS).sort());
    for (const e of events) expect(toEventSelector(e), e.name).toBe(REFERENCE_TOPICS[e.name as keyof typeof REFERENCE_TOPICS]);
    // topic1 channelId, topic2 payer, topic3 payee in every event
    for (const e of events)
      expect(
        e.inputs.filter((i) => i.indexed).map((i) => `${i.type} ${i.name}`),
        e.name,
      ).toEqual(["bytes32 channelId", "address payer", "address payee"]);
  });
});

describe("StreamChannelEscrow on the devnet", () => {
  let anvil: AnvilInstance;
  let client: DevnetClient;
  let sender: (k: Hex) => TxSender;
  let escrow: Address;
  const payerKey = DEV_PRIVATE_KEYS[4];
  const payeeKey = DEV_PRIVATE_KEYS[5];
  const strangerKey = DEV_PRIVATE_KEYS[7];
  const payer = privateKeyToAccount(payerKey);
  const payee = privateKeyToAccount(payeeKey);
  const stranger = privateKeyToAccount(strangerKey);
  const GAS = 3_000_000n;

  const call = (functionName: string, args: readonly unknown[]) => ({
    to: escrow,
    data: encodeFunctionData({ abi, functionName: functionName as never, args: args as never }),
  });
  const send = (key: Hex, calls: { to: Address; data: Hex }[]) => sender(key).sendAndWait(calls, { gas: GAS });
  const approve = (amount: bigint) => ({
    to: PATH_USD as Address,
    data: encodeFunctionData({ abi: Abis.tip20, functionName: "approve", args: [escrow, amount] }),
  });
  const read = <T>(functionName: string, args: readonly unknown[] = []) =>
    client.readContract({ address: escrow, abi, functionName: functionName as never, args: args as never }) as Promise<T>;
  /** The custom error a call from `from` reverts with (simulated, nothing sent). */
  const revertOf = async (from: Address, functionName: string, args: readonly unknown[]): Promise<string> => {
    try {
      await client.simulateContract({ address: escrow, abi, functionName: functionName as never, args: args as never, account: from });
      return "no revert";
    } catch (e) {
      const reverted = (e as BaseError).walk((x) => x instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
      return reverted?.data?.errorName ?? String(e);
    }
  };
  /** A voucher signed the way mppx's legacy client signs it. */
  const voucher = (key: Hex, channelId: Hex, cumulativeAmount: bigint) =>
    Voucher.signVoucher(mppDevnetClientResolver(anvil.url)(), privateKeyToAccount(key), { channelId, cumulativeAmount }, escrow, DEVNET_CHAIN_ID);
  const logsOf = (hash: Hash) => client.getTransactionReceipt({ hash }).then((r) => r.logs);
  const open = async (salt: Hex, deposit: bigint, signer: Address) => {
    const r = await send(payerKey, [approve(deposit), call("open", [payee.address, PATH_USD, deposit, salt, signer])]);
    const opened = parseEventLogs({ abi, logs: r.logs, eventName: "ChannelOpened" })[0]!;
    return { receipt: r, channelId: opened.args.channelId };
  };

  beforeAll(async () => {
    anvil = await startAnvil({ port: 0 });
    client = createDevnetClient({ url: anvil.url });
    sender = createSenderPool(client);
    const deployed = await sender(DEV_PRIVATE_KEYS[2]).sendAndWait([{ data: bytecode }], { gas: 25_000_000n });
    escrow = deployed.contractAddress!.toLowerCase() as Address;
  });
  afterAll(async () => {
    await anvil?.stop();
  });

  it("answers the views mppx reads: channel id, EIP-712 domain and voucher digest as mppx computes them", async () => {
    const salt = keccak256(stringToHex("views"));
    expect(await read("computeChannelId", [payer.address, payee.address, PATH_USD, salt, payer.address])).toBe(
      Channel.computeId({
        payer: payer.address,
        payee: payee.address,
        token: PATH_USD,
        salt,
        authorizedSigner: payer.address,
        escrowContract: escrow,
        chainId: DEVNET_CHAIN_ID,
      }),
    );
    const domain = { name: "Tempo Stream Channel", version: "1", chainId: DEVNET_CHAIN_ID, verifyingContract: escrow } as const;
    expect(await read("domainSeparator")).toBe(
      hashDomain({
        domain: { ...domain, chainId: BigInt(DEVNET_CHAIN_ID) },
        types: {
          EIP712Domain: [
            { name: "name", type: "string" },
            { name: "version", type: "string" },
            { name: "chainId", type: "uint256" },
            { name: "verifyingContract", type: "address" },
          ],
        },
      }),
    );
    const message = { channelId: keccak256(stringToHex("c")), cumulativeAmount: 1_234_567n };
    expect(await read("getVoucherDigest", [message.channelId, message.cumulativeAmount])).toBe(
      hashTypedData({
        domain,
        types: {
          Voucher: [
            { name: "channelId", type: "bytes32" },
            { name: "cumulativeAmount", type: "uint128" },
          ],
        },
        primaryType: "Voucher",
        message,
      }),
    );
    expect(await read("eip712Domain")).toEqual([
      "0x0f",
      "Tempo Stream Channel",
      "1",
      BigInt(DEVNET_CHAIN_ID),
      expect.stringMatching(new RegExp(`^${escrow}$`, "i")),
      zeroHash,
      [],
    ]);
    expect(await read("VOUCHER_TYPEHASH")).toBe(keccak256(stringToHex("Voucher(bytes32 channelId,uint128 cumulativeAmount)")));
    expect(await read("CLOSE_GRACE_PERIOD")).toBe(900n);
  });

  it("open → settle (mppx voucher) → requestClose → topUp (cancels it) → close: transfers and events with channelId/payer/payee indexed", async () => {
    const salt = keccak256(stringToHex("flow-1"));
    const { receipt, channelId } = await open(salt, 1_000_000n, payer.address);
    const moved = (logs: Awaited<ReturnType<typeof logsOf>>) =>
      parseEventLogs({ abi: Abis.tip20, logs, eventName: "Transfer" })
        .filter((t) => t.args.to.toLowerCase() !== "0xfeec000000000000000000000000000000000000")
        .map((t) => [t.args.from.toLowerCase(), t.args.to.toLowerCase(), t.args.amount]);
    const lc = (a: string) => a.toLowerCase();
    expect(moved(receipt.logs)).toEqual([[lc(payer.address), escrow, 1_000_000n]]);
    const opened = parseEventLogs({ abi, logs: receipt.logs, eventName: "ChannelOpened" })[0]!;
    expect(opened.topics).toEqual([
      REFERENCE_TOPICS.ChannelOpened,
      channelId,
      `0x${lc(payer.address).slice(2).padStart(64, "0")}`,
      `0x${lc(payee.address).slice(2).padStart(64, "0")}`,
    ]);
    expect(opened.args).toMatchObject({ token: expect.stringMatching(/^0x20c0+$/i), authorizedSigner: payer.address, salt, deposit: 1_000_000n });
    // mppx's own reader sees the channel
    const onChain = await Chain.getOnChainChannel(mppDevnetClientResolver(anvil.url)(), escrow, channelId);
    expect(onChain).toMatchObject({
      finalized: false,
      closeRequestedAt: 0n,
      payer: payer.address,
      payee: payee.address,
      authorizedSigner: payer.address,
      deposit: 1_000_000n,
      settled: 0n,
    });

    const v300 = await voucher(payerKey, channelId, 300_000n);
    expect(await revertOf(stranger.address, "settle", [channelId, 300_000n, v300])).toBe("NotPayee");
    expect(await revertOf(payee.address, "settle", [channelId, 300_000n, await voucher(strangerKey, channelId, 300_000n)])).toBe("InvalidSignature");
    expect(await revertOf(payee.address, "settle", [channelId, 2_000_000n, await voucher(payerKey, channelId, 2_000_000n)])).toBe("AmountExceedsDeposit");
    const settled = await send(payeeKey, [call("settle", [channelId, 300_000n, v300])]);
    expect(moved(settled.logs)).toEqual([[escrow, lc(payee.address), 300_000n]]);
    expect(parseEventLogs({ abi, logs: settled.logs, eventName: "Settled" })[0]!.args).toMatchObject({
      channelId,
      cumulativeAmount: 300_000n,
      deltaPaid: 300_000n,
      newSettled: 300_000n,
    });
    expect(await revertOf(payee.address, "settle", [channelId, 300_000n, v300])).toBe("AmountNotIncreasing");

    const requested = await send(payerKey, [call("requestClose", [channelId])]);
    const block = await client.getBlock({ blockNumber: requested.blockNumber });
    expect(parseEventLogs({ abi, logs: requested.logs, eventName: "CloseRequested" })[0]!.args.closeGraceEnd).toBe(block.timestamp + 900n);
    const toppedUp = await send(payerKey, [approve(500_000n), call("topUp", [channelId, 500_000n])]);
    expect(moved(toppedUp.logs)).toEqual([[lc(payer.address), escrow, 500_000n]]);
    expect(parseEventLogs({ abi, logs: toppedUp.logs }).map((e) => e.eventName)).toEqual(["CloseRequestCancelled", "TopUp"]);
    expect(parseEventLogs({ abi, logs: toppedUp.logs, eventName: "TopUp" })[0]!.args).toMatchObject({ additionalDeposit: 500_000n, newDeposit: 1_500_000n });

    expect(await revertOf(stranger.address, "close", [channelId, 1_000_000n, "0x"])).toBe("NotPayee");
    const closed = await send(payeeKey, [call("close", [channelId, 1_000_000n, await voucher(payerKey, channelId, 1_000_000n)])]);
    // the close pays the voucher's increase over what was settled, refunds the rest; settledToPayee is the channel's total
    expect(moved(closed.logs)).toEqual([
      [escrow, lc(payee.address), 700_000n],
      [escrow, lc(payer.address), 500_000n],
    ]);
    expect(parseEventLogs({ abi, logs: closed.logs, eventName: "ChannelClosed" })[0]!.args).toMatchObject({
      channelId,
      payer: payer.address,
      payee: payee.address,
      settledToPayee: 1_000_000n,
      refundedToPayer: 500_000n,
    });
    expect(await read("getChannel", [channelId])).toMatchObject({ finalized: true, payer: zeroAddress, deposit: 0n });
    expect(await revertOf(payee.address, "settle", [channelId, 1_100_000n, await voucher(payerKey, channelId, 1_100_000n)])).toBe("ChannelFinalized");
    // a finalized channel id can never be opened again (its old vouchers stay dead)
    expect(await revertOf(payer.address, "open", [payee.address, PATH_USD, 1n, salt, payer.address])).toBe("ChannelAlreadyExists");
  });

  it("a zero authorizedSigner means the payer signs; compact (EIP-2098) signatures are accepted; requestClose + withdraw after the grace period", async () => {
    const { channelId } = await open(keccak256(stringToHex("flow-2")), 400_000n, zeroAddress);
    const full = await voucher(payerKey, channelId, 100_000n);
    const compact = serializeCompactSignature(signatureToCompactSignature(parseSignature(full)));
    const settled = await send(payeeKey, [call("settle", [channelId, 100_000n, compact])]);
    expect(parseEventLogs({ abi, logs: settled.logs, eventName: "Settled" })[0]!.args.deltaPaid).toBe(100_000n);

    expect(await revertOf(payer.address, "withdraw", [channelId])).toBe("CloseNotReady");
    await send(payerKey, [call("requestClose", [channelId])]);
    expect(await revertOf(payer.address, "withdraw", [channelId])).toBe("CloseNotReady");
    expect(await revertOf(stranger.address, "withdraw", [channelId])).toBe("NotPayer");
    await rpcRequest(anvil.url, [
      { method: "evm_increaseTime", params: [900] },
      { method: "evm_mine", params: [] },
    ]);
    const withdrawn = await send(payerKey, [call("withdraw", [channelId])]);
    expect(parseEventLogs({ abi, logs: withdrawn.logs }).map((e) => [e.eventName, e.args])).toEqual([
      ["ChannelExpired", { channelId, payer: payer.address, payee: payee.address }],
      ["ChannelClosed", { channelId, payer: payer.address, payee: payee.address, settledToPayee: 100_000n, refundedToPayer: 300_000n }],
    ]);
  });
});
