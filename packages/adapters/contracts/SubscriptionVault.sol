// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice The allowance half of Permit2 the vault uses.
interface IAllowanceTransfer {
    struct PermitDetails {
        address token;
        uint160 amount;
        uint48 expiration;
        uint48 nonce;
    }

    struct PermitSingle {
        PermitDetails details;
        address spender;
        uint256 sigDeadline;
    }

    function permit(address owner, PermitSingle calldata permitSingle, bytes calldata signature) external;
    function transferFrom(address from, address to, uint160 amount, address token) external;
    function allowance(address owner, address token, address spender)
        external
        view
        returns (uint160 amount, uint48 expiration, uint48 nonce);
}

/// @title A subscription's allowance holder
/// @notice The code behind every subscription's clone: the spender of the payer's Permit2 allowance, which only the
/// vault that deployed it can draw on.
contract SubscriptionSpender {
    address private immutable vault;
    IAllowanceTransfer private immutable permit2;

    error NotVault();

    constructor(IAllowanceTransfer permit2_) {
        vault = msg.sender;
        permit2 = permit2_;
    }

    /// @notice Moves `amount` of `token` from `from` to `to` within the allowance `from` gave this clone.
    function pull(address from, address to, uint160 amount, address token) external {
        if (msg.sender != vault) revert NotVault();
        permit2.transferFrom(from, to, amount, token);
    }
}

/// @title Subscription vault (recurring payments under a per-period cap)
/// @notice The buyer signs one Permit2 `PermitSingle` whose spender is a clone this vault deploys for the
/// subscription at a CREATE2 address derived from the hash of its terms, so the signature fixes every term: other
/// terms give another spender, for which the signature says nothing. The operator (the gateway) then charges at most
/// `amountPerPeriod` per period, in parts, and only to the terms' receiver: a compromised operator can take no more
/// than the buyer agreed to. The payer or the operator cancels here; the payer can also revoke the allowance in
/// Permit2 (`approve` to 0, `lockdown`) without this vault.
/// Arrears: a period can be charged while it runs and during the next one (a worker that was down catches up),
/// never later, so a compromised operator cannot sweep months of arrears at once. The allowance ends with the term,
/// so the last period is charged within the term.
contract SubscriptionVault {
    /// @notice What the buyer agrees to; its hash is the CREATE2 salt of the allowance holder the buyer's permit names.
    struct Terms {
        /// The gateway's account: the only one that may subscribe and charge.
        address operator;
        address payer;
        /// The merchant's settlement destination: every charge goes there.
        address receiver;
        address token;
        uint160 amountPerPeriod;
        /// Seconds.
        uint48 period;
        /// When period 0 begins (Unix seconds); a trial is a later start.
        uint48 start;
        /// How many periods; 0 for a subscription until cancelled.
        uint48 periods;
        /// Makes two subscriptions with equal terms distinct.
        bytes32 salt;
    }

    struct Subscription {
        bool exists;
        bool cancelled;
    }

    IAllowanceTransfer public immutable permit2;
    /// @notice What every clone delegates to; the vault's first deployment (CREATE nonce 1).
    address public immutable implementation;
    bytes32 private immutable cloneCodeHash;

    mapping(bytes32 => Subscription) public subscriptionOf;
    /// @notice termsHash => period index => what was charged for that period.
    mapping(bytes32 => mapping(uint256 => uint160)) public charged;

    event Subscribed(bytes32 indexed termsHash, address indexed payer, address spender);
    event Charged(bytes32 indexed termsHash, uint256 periodIndex, uint256 amount);
    event Cancelled(bytes32 indexed termsHash, address by);

    error NotOperator();
    error NotPayerOrOperator();
    error BadTerms();
    error PermitMismatch();
    error AlreadySubscribed();
    error NotSubscribed();
    error SubscriptionCancelled();
    error PeriodNotStarted();
    error PeriodPassed();
    error TermOver();
    error ZeroAmount();
    error OverCap();

    constructor(IAllowanceTransfer permit2_) {
        permit2 = permit2_;
        implementation = address(new SubscriptionSpender(permit2_));
        cloneCodeHash = keccak256(_cloneCode(implementation));
    }

    /// @notice The hash of the terms, bound to this vault and chain.
    function termsHash(Terms calldata terms) public view returns (bytes32) {
        return keccak256(abi.encode(block.chainid, address(this), terms));
    }

    /// @notice The clone (deployed or not yet) that holds the allowance of the subscription with this hash.
    function spenderOf(bytes32 hash) public view returns (address) {
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), hash, cloneCodeHash)))));
    }

    /// @dev The largest allowance and the latest expiration the terms allow the payer's permit to set.
    function _limits(Terms calldata terms) private pure returns (uint160 amount, uint48 expiration) {
        if (terms.periods == 0) return (type(uint160).max, type(uint48).max);
        uint256 total = uint256(terms.amountPerPeriod) * terms.periods;
        uint256 end = uint256(terms.start) + uint256(terms.period) * terms.periods;
        if (total > type(uint160).max || end > type(uint48).max) revert BadTerms();
        return (uint160(total), uint48(end));
    }

    /// @notice Deploys the subscription's allowance holder and submits the payer's permit for it; once per terms.
    function subscribe(Terms calldata terms, IAllowanceTransfer.PermitSingle calldata permit, bytes calldata signature)
        external
    {
        if (msg.sender != terms.operator) revert NotOperator();
        if (terms.receiver == address(0) || terms.period == 0 || terms.amountPerPeriod == 0) revert BadTerms();
        (uint160 amount, uint48 expiration) = _limits(terms);
        bytes32 hash = termsHash(terms);
        if (
            permit.spender != spenderOf(hash) || permit.details.token != terms.token || permit.details.amount > amount
                || permit.details.expiration > expiration
        ) revert PermitMismatch();
        Subscription storage subscription = subscriptionOf[hash];
        if (subscription.exists) revert AlreadySubscribed();
        subscription.exists = true;
        bytes memory code = _cloneCode(implementation);
        address clone;
        assembly {
            clone := create2(0, add(code, 0x20), mload(code), hash)
        }
        // Fails only without gas or at the call depth limit: nothing the caller could be told to change.
        if (clone == address(0)) revert();
        try permit2.permit(terms.payer, permit, signature) {}
        catch (bytes memory reason) {
            // Anyone may submit the payer's signed permit to Permit2 first (it is public once sent): then its
            // allowance for this clone is already set, and the subscription stands on it.
            (uint160 allowed, uint48 until,) = permit2.allowance(terms.payer, terms.token, clone);
            if (allowed != permit.details.amount || until != permit.details.expiration) {
                assembly {
                    revert(add(reason, 0x20), mload(reason))
                }
            }
        }
        emit Subscribed(hash, terms.payer, clone);
    }

    /// @notice Sends `amount` for period `periodIndex` from the payer to the receiver; in parts, up to
    /// `amountPerPeriod` per period, while the period runs or during the next one.
    function charge(Terms calldata terms, uint256 periodIndex, uint160 amount) external {
        if (msg.sender != terms.operator) revert NotOperator();
        bytes32 hash = termsHash(terms);
        Subscription memory subscription = subscriptionOf[hash];
        if (!subscription.exists) revert NotSubscribed();
        if (subscription.cancelled) revert SubscriptionCancelled();
        if (terms.periods != 0) {
            (, uint48 end) = _limits(terms);
            if (periodIndex >= terms.periods || block.timestamp >= end) revert TermOver();
        }
        if (block.timestamp < terms.start) revert PeriodNotStarted();
        uint256 current = (block.timestamp - terms.start) / terms.period;
        if (periodIndex > current) revert PeriodNotStarted();
        if (periodIndex + 1 < current) revert PeriodPassed();
        if (amount == 0) revert ZeroAmount();
        uint256 total = uint256(charged[hash][periodIndex]) + amount;
        if (total > terms.amountPerPeriod) revert OverCap();
        charged[hash][periodIndex] = uint160(total);
        SubscriptionSpender(spenderOf(hash)).pull(terms.payer, terms.receiver, amount, terms.token);
        emit Charged(hash, periodIndex, amount);
    }

    /// @notice Ends the subscription: no charge passes afterwards. By the payer or the operator.
    function cancel(Terms calldata terms) external {
        if (msg.sender != terms.payer && msg.sender != terms.operator) revert NotPayerOrOperator();
        bytes32 hash = termsHash(terms);
        Subscription storage subscription = subscriptionOf[hash];
        if (!subscription.exists) revert NotSubscribed();
        if (subscription.cancelled) revert SubscriptionCancelled();
        subscription.cancelled = true;
        emit Cancelled(hash, msg.sender);
    }

    /// @dev EIP-1167 creation code of a minimal proxy delegating every call to `target`.
    function _cloneCode(address target) private pure returns (bytes memory) {
        return abi.encodePacked(
            hex"3d602d80600a3d3981f3363d3d373d3d3d363d73", target, hex"5af43d82803e903d91602b57fd5bf3"
        );
    }
}
