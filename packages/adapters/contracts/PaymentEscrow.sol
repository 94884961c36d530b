// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice The EIP-3009 entry the escrow pulls through: only the payee (this contract) may submit it.
interface IReceiveWithAuthorization {
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external;
}

/// @title Payment escrow (authorize now, capture later)
/// @notice Holds a buyer's authorized funds until the gateway captures them for the merchant, voids them, or
/// the buyer reclaims them after the capture deadline. The buyer signs an EIP-3009 ReceiveWithAuthorization
/// to this contract whose nonce is the hash of the payment's terms, so the signature fixes the amount and
/// every term: nobody (the gateway included) can change the receiver, the deadlines or the operator without
/// a new signature from the buyer. Funds only ever leave towards the terms' receiver (captures) or the payer
/// (voids, reclaims); a refund of a captured amount is paid by the operator, capped by what was captured.
contract PaymentEscrow {
    /// @notice What the buyer agrees to; its hash is the EIP-3009 nonce of the authorization.
    struct Terms {
        /// The gateway's account: the only one that may authorize, capture, void and refund.
        address operator;
        address payer;
        /// The merchant's settlement destination: every capture goes there.
        address receiver;
        address token;
        /// The authorization's own deadline (EIP-3009 validBefore).
        uint256 authorizeBefore;
        /// Captures only before it; after it the payer may reclaim what is still held.
        uint256 captureBefore;
        /// Refunds of captured amounts only before it.
        uint256 refundBefore;
        /// Makes two payments with equal terms distinct.
        bytes32 salt;
    }

    struct Held {
        uint128 held;
        uint128 captured;
        uint128 refunded;
        bool authorized;
    }

    mapping(bytes32 => Held) public payments;

    event Authorized(bytes32 indexed termsHash, address indexed payer, uint256 amount);
    event Captured(bytes32 indexed termsHash, address indexed receiver, uint256 amount);
    event Voided(bytes32 indexed termsHash, address indexed payer, uint256 amount);
    event Reclaimed(bytes32 indexed termsHash, address indexed payer, uint256 amount);
    event Refunded(bytes32 indexed termsHash, address indexed payer, uint256 amount);

    error NotOperator();
    error NotPayer();
    error AlreadyAuthorized();
    error NothingHeld();
    error TooMuch();
    error DeadlinePassed();
    error DeadlineNotPassed();
    error BadTerms();
    error TransferFailed();
    error Stale();

    /// @notice The hash a payer's authorization must carry as its nonce; bound to this escrow and chain.
    function termsHash(Terms calldata terms) public view returns (bytes32) {
        return keccak256(abi.encode(block.chainid, address(this), terms));
    }

    /// @notice Moves the payer's signed `amount` into the escrow; once per terms.
    function authorize(Terms calldata terms, uint256 amount, bytes calldata signature) external {
        if (msg.sender != terms.operator) revert NotOperator();
        if (terms.captureBefore > terms.refundBefore || terms.receiver == address(0)) revert BadTerms();
        if (block.timestamp >= terms.captureBefore) revert DeadlinePassed();
        if (amount == 0 || amount > type(uint128).max) revert TooMuch();
        bytes32 hash = termsHash(terms);
        Held storage state = payments[hash];
        if (state.authorized) revert AlreadyAuthorized();
        state.authorized = true;
        state.held = uint128(amount);
        uint256 before = _balance(terms.token);
        IReceiveWithAuthorization(terms.token).receiveWithAuthorization(
            terms.payer, address(this), amount, 0, terms.authorizeBefore, hash, signature
        );
        // What arrived, not what was asked: a token that takes a fee would otherwise leave the escrow short.
        if (_balance(terms.token) - before != amount) revert TransferFailed();
        emit Authorized(hash, terms.payer, amount);
    }

    /// @notice Sends `amount` of what is held to the receiver; in parts, up to what was authorized. Only while
    /// `capturedBefore` is what has been captured so far: the same capture sent twice, the second reverts
    /// (`Stale`), so a capture the operator retries is never paid twice.
    function capture(Terms calldata terms, uint256 amount, uint256 capturedBefore) external {
        if (msg.sender != terms.operator) revert NotOperator();
        if (block.timestamp >= terms.captureBefore) revert DeadlinePassed();
        bytes32 hash = termsHash(terms);
        Held storage state = payments[hash];
        if (state.captured != capturedBefore) revert Stale();
        if (state.held == 0) revert NothingHeld();
        if (amount == 0 || amount > state.held) revert TooMuch();
        state.held -= uint128(amount);
        state.captured += uint128(amount);
        _send(terms.token, terms.receiver, amount);
        emit Captured(hash, terms.receiver, amount);
    }

    /// @notice Gives everything still held back to the payer (the merchant will not capture it).
    function void(Terms calldata terms) external {
        if (msg.sender != terms.operator) revert NotOperator();
        bytes32 hash = termsHash(terms);
        uint256 amount = _release(hash);
        _send(terms.token, terms.payer, amount);
        emit Voided(hash, terms.payer, amount);
    }

    /// @notice The payer takes back what is still held once the capture deadline has passed.
    function reclaim(Terms calldata terms) external {
        if (msg.sender != terms.payer) revert NotPayer();
        if (block.timestamp < terms.captureBefore) revert DeadlineNotPassed();
        bytes32 hash = termsHash(terms);
        uint256 amount = _release(hash);
        _send(terms.token, terms.payer, amount);
        emit Reclaimed(hash, terms.payer, amount);
    }

    /// @notice Pays `amount` of a captured sum back to the payer from the operator's own funds (approved to
    /// the escrow); never more than was captured, and only within the refund window.
    function refund(Terms calldata terms, uint256 amount) external {
        if (msg.sender != terms.operator) revert NotOperator();
        if (block.timestamp >= terms.refundBefore) revert DeadlinePassed();
        bytes32 hash = termsHash(terms);
        Held storage state = payments[hash];
        if (amount == 0 || amount > uint256(state.captured) - state.refunded) revert TooMuch();
        state.refunded += uint128(amount);
        _call(terms.token, abi.encodeWithSelector(0x23b872dd, msg.sender, terms.payer, amount));
        emit Refunded(hash, terms.payer, amount);
    }

    function _release(bytes32 hash) private returns (uint256 amount) {
        Held storage state = payments[hash];
        amount = state.held;
        if (amount == 0) revert NothingHeld();
        state.held = 0;
    }

    function _balance(address token) private view returns (uint256) {
        (bool ok, bytes memory answer) = token.staticcall(abi.encodeWithSelector(0x70a08231, address(this)));
        if (!ok || answer.length < 32) revert TransferFailed();
        return abi.decode(answer, (uint256));
    }

    function _send(address token, address to, uint256 amount) private {
        _call(token, abi.encodeWithSelector(0xa9059cbb, to, amount));
    }

    /// @dev Tokens that return nothing (USDT) succeed when the call does; those that return must say true.
    function _call(address token, bytes memory data) private {
        (bool ok, bytes memory answer) = token.call(data);
        if (!ok || (answer.length != 0 && (answer.length < 32 || !abi.decode(answer, (bool))))) revert TransferFailed();
        if (answer.length == 0 && token.code.length == 0) revert TransferFailed();
    }
}
