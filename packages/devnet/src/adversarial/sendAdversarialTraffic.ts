import {
  encodeAbiParameters,
  encodeEventTopics,
  encodeFunctionData,
  getAddress,
  keccak256,
  maxUint256,
  parseAbiItem,
  parseEventLogs,
  stringToHex,
  toHex,
  type Address,
  type Hash,
  type Hex,
} from "viem";
import { Abis } from "viem/tempo";
import type { DevnetClient } from "../chain.ts";
import { ALPHA_USD, FEE_MANAGER, PATH_USD } from "../constants.ts";
import { abi as escrowAbi } from "../contracts/GatewayEscrow.artifact.ts";
import type { TxSender } from "../createTxSender.ts";

/** The cases of methodology issue 15, each a real transaction (docs/methodology.md says what v0.1 and v0.2 make of them). */
export type AdversarialCase =
  | "nonTokenTransfer"
  | "junkTokenTransfer"
  | "junkTokenMint"
  | "forgedSoloMemo"
  | "untrustedSettlement"
  | "outsiderEscrowCall"
  | "funding"
  | "sameEntityMove"
  | "inactiveEntity"
  | "feeAmmLiquidity"
  | "feeAmmWithdrawal";

export type AdversarialTraffic = { txs: Record<AdversarialCase, Hash>; emitter3: Address; emitter4: Address; junkToken: Address };

/**
 * Runtime code that emits one log with 3 (or 4) topics taken from the first 3 (4) calldata words and the rest of the
 * calldata as data — a contract that is not a token but can emit any `Transfer`, `TransferWithMemo` or `Settlement`.
 * `PUSH1 <L> DUP1 PUSH1 0x0b PUSH1 0 CODECOPY PUSH1 0 RETURN` deploys it.
 */
const EMITTER3_RUNTIME = "604035602035600035606036038060606000376000a300";
const EMITTER4_RUNTIME = "606035604035602035600035608036038060806000376000a400";
const deployCode = (runtime: string): Hex => `0x60${(runtime.length / 2).toString(16).padStart(2, "0")}80600b6000396000f3${runtime}`;

const settlementEvent = parseAbiItem(
  "event Settlement(bytes32 indexed sessionRef, address indexed serviceProvider, address indexed gateway, uint256 amountIn, uint256 amountOut)",
);
const GAS = 3_000_000n;
const word = (h: Hex) => h.slice(2);

export type SendAdversarialTrafficParams = {
  client: DevnetClient;
  sender: (privateKey: Hex) => TxSender;
  /** Pays and emits everything adversarial; needs pathUSD for fees (the funder sends it some). */
  outsiderKey: Hex;
  /** A labelled funding source (faucet/treasury/exchange) holding pathUSD. */
  funderKey: Hex;
  /** A watched agent wallet (its key: it makes the same-entity and inactive-entity moves). */
  agentKey: Hex;
  /** A second wallet of the same entity as the agent. */
  agentSecondWallet: Address;
  /** A watched service (paid by the outsider). */
  service: Address;
  /** The watched gateway wallet (named in the forged Settlement). */
  gateway: Address;
  /** A wallet of an entity the registry marks inactive. */
  inactiveWallet: Address;
  /** The trusted escrow the outsider calls. */
  escrow: Address;
  log?: (event: Record<string, unknown>) => void;
};

/**
 * Sends one transaction per adversarial case (issue 15): a contract that is not a token emitting `Transfer`, a junk
 * factory TIP-20 minted and sent to a watched agent, a forged lone `TransferWithMemo`, an untrusted contract emitting
 * `Settlement` next to a real payment, an outsider paying a watched service and calling the trusted escrow as its own
 * provider, a funding move, a same-entity move, a payment to an inactive entity, and the agent adding liquidity to the
 * fee AMM (its pathUSD to the FeeManager, 0xfeec…, which is also the AMM) and withdrawing it (the FeeManager pays the
 * agent). Returns the hashes by case.
 */
export async function sendAdversarialTraffic(p: SendAdversarialTrafficParams): Promise<AdversarialTraffic> {
  const outsider = p.sender(p.outsiderKey);
  const funder = p.sender(p.funderKey);
  const agent = p.sender(p.agentKey);
  const agentAddress = getAddress(agent.address);
  const txs = {} as Record<AdversarialCase, Hash>;
  const send = async (c: AdversarialCase, s: TxSender, calls: Parameters<TxSender["sendAndWait"]>[0]) => {
    const receipt = await s.sendAndWait(calls, { gas: GAS });
    txs[c] = receipt.transactionHash;
    p.log?.({ event: "adversarial_tx", case: c, tx: receipt.transactionHash, block: receipt.blockNumber });
    return receipt;
  };
  const transfer = (to: Address, amount: bigint, token: Address = PATH_USD) => ({
    to: token,
    data: encodeFunctionData({ abi: Abis.tip20, functionName: "transfer", args: [getAddress(to), amount] }),
  });

  // funding: a labelled funder tops the outsider and the agent up (the outsider's top-up is not watched)
  await funder.sendAndWait([transfer(outsider.address, 1_000_000_000n)], { gas: GAS });
  await send("funding", funder, [transfer(agentAddress, 250_000_000n)]);

  const deploy = async (runtime: string) => {
    const r = await outsider.sendAndWait([{ data: deployCode(runtime) }], { gas: GAS });
    if (!r.contractAddress) throw new Error("emitter deployment returned no contract address");
    return getAddress(r.contractAddress);
  };
  const emitter3 = await deploy(EMITTER3_RUNTIME);
  const emitter4 = await deploy(EMITTER4_RUNTIME);
  const emit = (emitter: Address, topics: readonly Hex[], data: Hex) => ({ to: emitter, data: `0x${topics.map(word).join("")}${word(data)}` as Hex });
  const uint = (n: bigint) => encodeAbiParameters([{ type: "uint256" }], [n]);

  const transferTopics = encodeEventTopics({ abi: Abis.tip20, eventName: "Transfer", args: { from: getAddress(outsider.address), to: agentAddress } }) as Hex[];
  await send("nonTokenTransfer", outsider, [emit(emitter3, transferTopics, uint(10n ** 30n))]);

  const memoTopics = encodeEventTopics({
    abi: Abis.tip20,
    eventName: "TransferWithMemo",
    args: { from: getAddress(outsider.address), to: agentAddress, memo: stringToHex("forged", { size: 32 }) },
  }) as Hex[];
  await send("forgedSoloMemo", outsider, [emit(emitter4, memoTopics, uint(7n * 10n ** 24n))]);

  // a junk TIP-20 from the factory: real TIP-20 logs, but not an allowlisted token
  const created = await outsider.sendAndWait(
    [
      {
        to: "0x20fc000000000000000000000000000000000000",
        data: encodeFunctionData({
          abi: Abis.tip20Factory,
          functionName: "createToken",
          args: ["Junk Dollar", "JUNK", "USD", PATH_USD, getAddress(outsider.address), keccak256(toHex(`junk:${outsider.address}:${Date.now()}`))],
        }),
      },
    ],
    { gas: GAS },
  );
  const [tokenCreated] = parseEventLogs({ abi: Abis.tip20Factory, eventName: "TokenCreated", logs: created.logs });
  if (!tokenCreated) throw new Error("factory created no token");
  const junkToken = getAddress(tokenCreated.args.token);
  const issuerRole = await p.client.readContract({ address: junkToken, abi: Abis.tip20, functionName: "ISSUER_ROLE" });
  await outsider.sendAndWait(
    [{ to: junkToken, data: encodeFunctionData({ abi: Abis.tip20, functionName: "grantRole", args: [issuerRole, getAddress(outsider.address)] }) }],
    { gas: GAS },
  );
  await send("junkTokenMint", outsider, [
    { to: junkToken, data: encodeFunctionData({ abi: Abis.tip20, functionName: "mint", args: [agentAddress, 7n * 10n ** 24n] }) },
  ]);
  await outsider.sendAndWait(
    [{ to: junkToken, data: encodeFunctionData({ abi: Abis.tip20, functionName: "mint", args: [getAddress(outsider.address), 5n * 10n ** 24n] }) }],
    { gas: GAS },
  );
  await send("junkTokenTransfer", outsider, [transfer(agentAddress, 5n * 10n ** 24n, junkToken)]);

  // an untrusted contract emits a Settlement naming the watched gateway and the outsider as provider, next to a real payment
  const settlementTopics = encodeEventTopics({
    abi: [settlementEvent],
    args: { sessionRef: stringToHex("forged-session", { size: 32 }), serviceProvider: getAddress(outsider.address), gateway: getAddress(p.gateway) },
  }) as Hex[];
  await send("untrustedSettlement", outsider, [
    transfer(p.service, 40_000n),
    emit(emitter4, settlementTopics, encodeAbiParameters([{ type: "uint256" }, { type: "uint256" }], [40_000n, 40_000n])),
  ]);

  // the outsider pays a watched service and calls the trusted escrow with itself as provider, in one transaction
  await outsider.sendAndWait(
    [{ to: PATH_USD, data: encodeFunctionData({ abi: Abis.tip20, functionName: "approve", args: [getAddress(p.escrow), maxUint256] }) }],
    { gas: GAS },
  );
  await send("outsiderEscrowCall", outsider, [
    transfer(p.service, 50_000n),
    {
      to: getAddress(p.escrow),
      data: encodeFunctionData({
        abi: escrowAbi,
        functionName: "settle",
        args: [PATH_USD, stringToHex("outsider", { size: 32 }), getAddress(outsider.address), 1n, 1n],
      }),
    },
  ]);

  await send("sameEntityMove", agent, [transfer(p.agentSecondWallet, 30_000n)]);
  await send("inactiveEntity", agent, [transfer(p.inactiveWallet, 20_000n)]);

  // fee AMM: the agent deposits 60,000 pathUSD units of validator-token liquidity (a transfer to the FeeManager besides
  // the transaction's fee), then burns its LP balance (transfers from the FeeManager to the agent)
  const pool = { userToken: ALPHA_USD, validatorToken: PATH_USD } as const;
  await send("feeAmmLiquidity", agent, [
    {
      to: FEE_MANAGER,
      data: encodeFunctionData({ abi: Abis.feeAmm, functionName: "mint", args: [pool.userToken, pool.validatorToken, 60_000n, agentAddress] }),
    },
  ]);
  const liquidity = await p.client.readContract({
    address: FEE_MANAGER,
    abi: Abis.feeAmm,
    functionName: "liquidityBalances",
    args: [
      await p.client.readContract({ address: FEE_MANAGER, abi: Abis.feeAmm, functionName: "getPoolId", args: [pool.userToken, pool.validatorToken] }),
      agentAddress,
    ],
  });
  if (liquidity === 0n) throw new Error("fee AMM mint left the agent no liquidity");
  await send("feeAmmWithdrawal", agent, [
    {
      to: FEE_MANAGER,
      data: encodeFunctionData({ abi: Abis.feeAmm, functionName: "burn", args: [pool.userToken, pool.validatorToken, liquidity, agentAddress] }),
    },
  ]);
  return { txs, emitter3, emitter4, junkToken };
}
