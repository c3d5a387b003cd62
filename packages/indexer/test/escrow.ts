import { PATH_USD, createDevnetClient, createTxSender, gatewayEscrowAbi, gatewayEscrowBytecode } from "@agent-ledger/devnet";
import { encodeFunctionData, getAddress, maxUint256, stringToHex, type Hex } from "viem";
import { Abis } from "viem/tempo";

/** Deploys the demo GatewayEscrow from `deployerKey`; returns its lowercase address. */
export async function deployEscrowForTest(rpcUrl: string, deployerKey: Hex): Promise<string> {
  const sender = createTxSender({ client: createDevnetClient({ url: rpcUrl }), privateKey: deployerKey });
  const receipt = await sender.sendAndWait([{ data: gatewayEscrowBytecode }], { gas: 3_000_000n });
  if (!receipt.contractAddress) throw new Error("escrow deployment returned no contract address");
  return receipt.contractAddress.toLowerCase();
}

/** The gateway approves the escrow, then settles one session to `provider` (Transfer + Settlement in one tx). */
export async function settleThroughEscrow(rpcUrl: string, gatewayKey: Hex, escrow: string, s: { provider: string; amountIn: bigint; amountOut: bigint }) {
  const sender = createTxSender({ client: createDevnetClient({ url: rpcUrl }), privateKey: gatewayKey });
  await sender.sendAndWait([{ to: PATH_USD, data: encodeFunctionData({ abi: Abis.tip20, functionName: "approve", args: [getAddress(escrow), maxUint256] }) }], {
    gas: 1_500_000n,
  });
  return sender.sendAndWait(
    [
      {
        to: getAddress(escrow),
        data: encodeFunctionData({
          abi: gatewayEscrowAbi,
          functionName: "settle",
          args: [PATH_USD, stringToHex("session-1", { size: 32 }), getAddress(s.provider), s.amountIn, s.amountOut],
        }),
      },
    ],
    { gas: 2_000_000n },
  );
}
