export { startAnvil, type AnvilInstance, type StartAnvilOptions } from "./startAnvil.ts";
export { resolveAnvilBinary } from "./resolveAnvilBinary.ts";
export { anvilCompat, createDevnetClient, devnetChain, type DevnetChain, type DevnetClient } from "./chain.ts";
export * from "./constants.ts";
export { AnvilStartError, DevnetError, TimeoutError, TxFailedError } from "./errors.ts";
export { withTimeout } from "./withTimeout.ts";
export { rpcRequest, type RpcCall, type RpcResult } from "./rpcRequest.ts";
export { signTempoTx, type SignTempoTxParams, type TempoCall, type TempoSigner } from "./signTempoTx.ts";
export { createTxSender, type DevnetReceipt, type SendOptions, type TxSender } from "./createTxSender.ts";
export { createSenderPool } from "./createSenderPool.ts";
export { abi as gatewayEscrowAbi, bytecode as gatewayEscrowBytecode } from "./contracts/GatewayEscrow.artifact.ts";
export { abi as streamChannelEscrowAbi, bytecode as streamChannelEscrowBytecode } from "./contracts/StreamChannelEscrow.artifact.ts";
export { GATEWAY_MEMO_MAGIC, MAX_GATEWAY_NONCE, encodeGatewayMemo } from "./memo/encodeGatewayMemo.ts";
export { decodeGatewayMemo } from "./memo/decodeGatewayMemo.ts";
export { DEMO_KEY_PREFIX, demoPrivateKey } from "./demo/demoPrivateKey.ts";
export {
  demoKeys,
  type DemoAgent,
  type DemoDirectService,
  type DemoFaucet,
  type DemoIdentity,
  type DemoKeys,
  type DemoRoutedService,
} from "./demo/demoKeys.ts";
export { buildDemoRegistry, type DemoRegistry, type RegistryEntity, type RegistryServerId } from "./demo/buildDemoRegistry.ts";
export { fundDemoAccounts } from "./demo/fundDemoAccounts.ts";
export { deployGatewayEscrow } from "./demo/deployGatewayEscrow.ts";
export { setupDemo, type SetupDemoResult } from "./demo/setupDemo.ts";
export { deployStreamChannelEscrow } from "./demo/deployStreamChannelEscrow.ts";
export { sessionPayees, setupMppDemo, type SetupMppDemoResult } from "./demo/setupMppDemo.ts";
export { demoMppServers, type DemoMppServer } from "./demo/demoMppServers.ts";
export { startDemoTraffic, type DemoEvent, type DemoTrafficStats, type DemoTxKind, type StartDemoTrafficParams } from "./demo/startDemoTraffic.ts";
export {
  sendAdversarialTraffic,
  type AdversarialCase,
  type AdversarialTraffic,
  type SendAdversarialTrafficParams,
} from "./adversarial/sendAdversarialTraffic.ts";
export { sendBulkTransfers, T4_GAS, type SendBulkTransfersParams, type SendBulkTransfersResult } from "./bulk/sendBulkTransfers.ts";
export { GAS_FLOOR, mppDevnetChain, mppDevnetClientResolver } from "./mpp/mppDevnetChain.ts";
export { mppFingerprint } from "./mpp/mppFingerprint.ts";
export {
  legacySession,
  type LegacyChannelState,
  type LegacySessionEvent,
  type LegacySessionParameters,
  type LegacySessionServer,
} from "./mpp/legacySession.ts";
export {
  startMppServer,
  type MppChargeOffer,
  type MppRealmConfig,
  type MppServer,
  type MppServerRealm,
  type MppSessionOffer,
  type StartMppServerParams,
} from "./mpp/startMppServer.ts";
export {
  createMppAgent,
  type CreateMppAgentParams,
  type MppAgent,
  type MppChargePayment,
  type MppSession,
  type MppSessionReceipt,
} from "./mpp/createMppAgent.ts";
