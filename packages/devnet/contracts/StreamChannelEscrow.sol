// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @dev The two TIP-20 token precompile calls the escrow makes (ERC-20 compatible, return true or revert).
interface ITIP20Transfers {
    function transfer(address to, uint256 amount) external returns (bool);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// @title StreamChannelEscrow (Agent Ledger devnet)
/// @notice A unidirectional payment-channel escrow with the interface of MPP's legacy session escrow
/// ("TempoStreamChannel", mainnet 0x33b9…4f25): the functions, views, errors and events of mppx 0.11.0
/// `src/tempo/legacy/session/escrow.abi.ts`, and the EIP-712 voucher its client signs
/// (domain "Tempo Stream Channel" / "1" / chain id / this contract; `Voucher(bytes32 channelId,uint128 cumulativeAmount)`).
/// Written for the local devnet from that ABI and the documented behaviour, so mppx's session client and the
/// on-chain helpers it ships (open, settle, close, topUp) run against it unchanged.
///
/// Life of a channel: the payer `open`s it with a deposit (pulled with transferFrom after an approve), signs
/// cumulative vouchers off-chain; the payee `settle`s the newest voucher at any time (the increase since the last
/// settlement is paid out), and `close`s cooperatively (pays the rest of the voucher, refunds the remaining
/// deposit to the payer). The payer may `topUp`, or `requestClose` and `withdraw` the unsettled deposit once
/// CLOSE_GRACE_PERIOD has passed. Every event indexes channelId, payer and payee (topics 1, 2, 3).
/// `ChannelClosed.settledToPayee` is the channel's total settled amount, not the payout of the closing call;
/// the payout is the Transfer escrow → payee in the same transaction.
contract StreamChannelEscrow {
    /// @dev Field order is the order of mppx's `getChannel` / `channels` outputs.
    struct Channel {
        bool finalized;
        uint64 closeRequestedAt;
        address payer;
        address payee;
        address token;
        address authorizedSigner;
        uint128 deposit;
        uint128 settled;
    }

    bytes32 public constant VOUCHER_TYPEHASH = keccak256("Voucher(bytes32 channelId,uint128 cumulativeAmount)");
    uint64 public constant CLOSE_GRACE_PERIOD = 15 minutes;

    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant NAME_HASH = keccak256("Tempo Stream Channel");
    bytes32 private constant VERSION_HASH = keccak256("1");
    /// @dev secp256k1n / 2: a larger `s` is the malleable twin of a valid signature.
    uint256 private constant HALF_CURVE_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0;

    mapping(bytes32 => Channel) public channels;

    event ChannelOpened(
        bytes32 indexed channelId,
        address indexed payer,
        address indexed payee,
        address token,
        address authorizedSigner,
        bytes32 salt,
        uint256 deposit
    );
    event TopUp(bytes32 indexed channelId, address indexed payer, address indexed payee, uint256 additionalDeposit, uint256 newDeposit);
    event Settled(
        bytes32 indexed channelId,
        address indexed payer,
        address indexed payee,
        uint256 cumulativeAmount,
        uint256 deltaPaid,
        uint256 newSettled
    );
    event CloseRequested(bytes32 indexed channelId, address indexed payer, address indexed payee, uint256 closeGraceEnd);
    event CloseRequestCancelled(bytes32 indexed channelId, address indexed payer, address indexed payee);
    event ChannelClosed(bytes32 indexed channelId, address indexed payer, address indexed payee, uint256 settledToPayee, uint256 refundedToPayer);
    event ChannelExpired(bytes32 indexed channelId, address indexed payer, address indexed payee);

    error AmountExceedsDeposit();
    error AmountNotIncreasing();
    error ChannelAlreadyExists();
    error ChannelFinalized();
    error ChannelNotFound();
    error CloseNotReady();
    error DepositOverflow();
    error InvalidPayee();
    error InvalidSignature();
    error NotPayee();
    error NotPayer();
    error TransferFailed();

    // ── payer ───────────────────────────────────────────────────────────────────────────────────────────────

    /// @notice Opens a channel from msg.sender to `payee`, escrowing `deposit` of `token` (approve it first).
    /// @param authorizedSigner Who signs vouchers; zero means the payer.
    function open(address payee, address token, uint128 deposit, bytes32 salt, address authorizedSigner)
        external
        returns (bytes32 channelId)
    {
        if (payee == address(0)) revert InvalidPayee();
        channelId = computeChannelId(msg.sender, payee, token, salt, authorizedSigner);
        Channel storage c = channels[channelId];
        // a finalized id stays taken: its vouchers must never become valid again
        if (c.payer != address(0) || c.finalized) revert ChannelAlreadyExists();
        c.payer = msg.sender;
        c.payee = payee;
        c.token = token;
        c.authorizedSigner = authorizedSigner;
        c.deposit = deposit;
        _pull(token, msg.sender, deposit);
        emit ChannelOpened(channelId, msg.sender, payee, token, authorizedSigner, salt, deposit);
    }

    /// @notice Adds `additionalDeposit` to an open channel; cancels a pending close request.
    function topUp(bytes32 channelId, uint256 additionalDeposit) external {
        Channel storage c = _live(channelId);
        if (msg.sender != c.payer) revert NotPayer();
        if (additionalDeposit > type(uint128).max - c.deposit) revert DepositOverflow();
        c.deposit += uint128(additionalDeposit);
        _pull(c.token, msg.sender, additionalDeposit);
        if (c.closeRequestedAt != 0) {
            c.closeRequestedAt = 0;
            emit CloseRequestCancelled(channelId, c.payer, c.payee);
        }
        emit TopUp(channelId, c.payer, c.payee, additionalDeposit, c.deposit);
    }

    /// @notice Starts the grace period after which the payer may withdraw what was not settled.
    function requestClose(bytes32 channelId) external {
        Channel storage c = _live(channelId);
        if (msg.sender != c.payer) revert NotPayer();
        if (c.closeRequestedAt != 0) return; // already requested: the first request's clock runs
        c.closeRequestedAt = uint64(block.timestamp);
        emit CloseRequested(channelId, c.payer, c.payee, block.timestamp + CLOSE_GRACE_PERIOD);
    }

    /// @notice After the grace period, refunds the unsettled deposit to the payer and finalizes the channel.
    function withdraw(bytes32 channelId) external {
        Channel storage c = _live(channelId);
        if (msg.sender != c.payer) revert NotPayer();
        if (c.closeRequestedAt == 0 || block.timestamp < uint256(c.closeRequestedAt) + CLOSE_GRACE_PERIOD) revert CloseNotReady();
        (address payer, address payee, address token, uint128 settled) = (c.payer, c.payee, c.token, c.settled);
        uint128 refund = c.deposit - settled;
        _finalize(channelId);
        _push(token, payer, refund);
        emit ChannelExpired(channelId, payer, payee);
        emit ChannelClosed(channelId, payer, payee, settled, refund);
    }

    // ── payee ───────────────────────────────────────────────────────────────────────────────────────────────

    /// @notice Pays the payee the increase of a signed cumulative voucher over what was already settled.
    function settle(bytes32 channelId, uint128 cumulativeAmount, bytes calldata signature) external {
        Channel storage c = _live(channelId);
        if (msg.sender != c.payee) revert NotPayee();
        if (cumulativeAmount > c.deposit) revert AmountExceedsDeposit();
        if (cumulativeAmount <= c.settled) revert AmountNotIncreasing();
        _checkVoucher(c, channelId, cumulativeAmount, signature);
        uint128 delta = cumulativeAmount - c.settled;
        c.settled = cumulativeAmount;
        _push(c.token, c.payee, delta);
        emit Settled(channelId, c.payer, c.payee, cumulativeAmount, delta, cumulativeAmount);
    }

    /// @notice Closes the channel: pays the voucher's increase (if above what was settled; no signature needed
    /// otherwise), refunds the rest of the deposit to the payer, finalizes.
    function close(bytes32 channelId, uint128 cumulativeAmount, bytes calldata signature) external {
        Channel storage c = _live(channelId);
        if (msg.sender != c.payee) revert NotPayee();
        uint128 settled = c.settled;
        uint128 delta;
        if (cumulativeAmount > settled) {
            if (cumulativeAmount > c.deposit) revert AmountExceedsDeposit();
            _checkVoucher(c, channelId, cumulativeAmount, signature);
            delta = cumulativeAmount - settled;
            settled = cumulativeAmount;
        }
        (address payer, address payee, address token) = (c.payer, c.payee, c.token);
        uint128 refund = c.deposit - settled;
        _finalize(channelId);
        _push(token, payee, delta);
        _push(token, payer, refund);
        emit ChannelClosed(channelId, payer, payee, settled, refund);
    }

    // ── views ───────────────────────────────────────────────────────────────────────────────────────────────

    function getChannel(bytes32 channelId) external view returns (Channel memory) {
        return channels[channelId];
    }

    function getChannelsBatch(bytes32[] calldata channelIds) external view returns (Channel[] memory channelStates) {
        channelStates = new Channel[](channelIds.length);
        for (uint256 i = 0; i < channelIds.length; ++i) channelStates[i] = channels[channelIds[i]];
    }

    /// @notice keccak256(abi.encode(payer, payee, token, salt, authorizedSigner, this escrow, chain id)).
    function computeChannelId(address payer, address payee, address token, bytes32 salt, address authorizedSigner)
        public
        view
        returns (bytes32)
    {
        return keccak256(abi.encode(payer, payee, token, salt, authorizedSigner, address(this), block.chainid));
    }

    function domainSeparator() public view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, block.chainid, address(this)));
    }

    function getVoucherDigest(bytes32 channelId, uint128 cumulativeAmount) public view returns (bytes32) {
        bytes32 structHash = keccak256(abi.encode(VOUCHER_TYPEHASH, channelId, cumulativeAmount));
        return keccak256(abi.encodePacked(hex"1901", domainSeparator(), structHash));
    }

    /// @notice EIP-5267: name, version, chain id and verifying contract are used (fields 0x0f).
    function eip712Domain()
        external
        view
        returns (
            bytes1 fields,
            string memory name,
            string memory version,
            uint256 chainId,
            address verifyingContract,
            bytes32 salt,
            uint256[] memory extensions
        )
    {
        return (hex"0f", "Tempo Stream Channel", "1", block.chainid, address(this), bytes32(0), new uint256[](0));
    }

    // ── internals ───────────────────────────────────────────────────────────────────────────────────────────

    /// @dev An existing channel that is not finalized.
    function _live(bytes32 channelId) private view returns (Channel storage c) {
        c = channels[channelId];
        if (c.finalized) revert ChannelFinalized();
        if (c.payer == address(0)) revert ChannelNotFound();
    }

    /// @dev Clears the channel and keeps only `finalized`, so the id can never be opened again.
    function _finalize(bytes32 channelId) private {
        delete channels[channelId];
        channels[channelId].finalized = true;
    }

    function _checkVoucher(Channel storage c, bytes32 channelId, uint128 cumulativeAmount, bytes calldata signature) private view {
        address expected = c.authorizedSigner == address(0) ? c.payer : c.authorizedSigner;
        address signer = _recover(getVoucherDigest(channelId, cumulativeAmount), signature);
        if (signer == address(0) || signer != expected) revert InvalidSignature();
    }

    /// @dev secp256k1 signer of `digest`: 65 bytes r‖s‖v (v 27/28 or 0/1) or 64 bytes r‖vs (EIP-2098).
    /// Zero for a malformed or malleable (high-s) signature.
    function _recover(bytes32 digest, bytes calldata signature) private pure returns (address) {
        bytes32 r;
        bytes32 s;
        uint8 v;
        if (signature.length == 65) {
            r = bytes32(signature[0:32]);
            s = bytes32(signature[32:64]);
            v = uint8(signature[64]);
            if (v < 27) v += 27;
        } else if (signature.length == 64) {
            r = bytes32(signature[0:32]);
            bytes32 vs = bytes32(signature[32:64]);
            s = vs & bytes32(type(uint256).max >> 1);
            v = uint8(uint256(vs) >> 255) + 27;
        } else {
            return address(0);
        }
        if ((v != 27 && v != 28) || uint256(s) > HALF_CURVE_ORDER) return address(0);
        return ecrecover(digest, v, r, s);
    }

    function _pull(address token, address from, uint256 amount) private {
        if (!ITIP20Transfers(token).transferFrom(from, address(this), amount)) revert TransferFailed();
    }

    function _push(address token, address to, uint256 amount) private {
        if (amount == 0) return;
        if (!ITIP20Transfers(token).transfer(to, amount)) revert TransferFailed();
    }
}
