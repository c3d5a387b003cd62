// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @dev The subset of the TIP-20 token precompile interface the escrow uses.
interface ITIP20 {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// @title GatewayEscrow (Agent Ledger devnet demo)
/// @notice Settles a gateway session to a service provider: moves `amountOut` of a TIP-20 token from the
/// calling gateway wallet (which approved this contract once) to the provider, and emits `Settlement`
/// (topic1 sessionRef, topic2 serviceProvider, topic3 gateway; data amountIn, amountOut) in the same tx.
/// @dev topic0 = keccak256("Settlement(bytes32,address,address,uint256,uint256)") = 0x1c5bd824…dd3f.
/// The topic0 0x92ed5fe0…7b51 reported for the mainnet escrow 0x33b9…4f25 is
/// keccak256("ChannelClosed(bytes32,address,address,uint256,uint256)"): same layout, other name.
contract GatewayEscrow {
    event Settlement(
        bytes32 indexed sessionRef,
        address indexed serviceProvider,
        address indexed gateway,
        uint256 amountIn,
        uint256 amountOut
    );

    error AmountOutExceedsAmountIn();
    error TransferFailed();

    /// @param token TIP-20 token to pay the provider in.
    /// @param sessionRef Gateway session reference (opaque).
    /// @param provider Service provider paid by this settlement.
    /// @param amountIn What the gateway collected from the agent(s) for this session.
    /// @param amountOut What the provider receives (amountIn minus the gateway's margin).
    function settle(address token, bytes32 sessionRef, address provider, uint256 amountIn, uint256 amountOut) external {
        if (amountOut > amountIn) revert AmountOutExceedsAmountIn();
        if (!ITIP20(token).transferFrom(msg.sender, provider, amountOut)) revert TransferFailed();
        emit Settlement(sessionRef, provider, msg.sender, amountIn, amountOut);
    }
}
