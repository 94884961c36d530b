// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice The EIP-1271 signature check of contract wallets.
interface IPermit2Signer {
    function isValidSignature(bytes32 hash, bytes memory signature) external view returns (bytes4 magicValue);
}

/// @title Test Permit2 (signature transfers and allowances)
/// @notice Uniswap's Permit2 written for local chains and tests, with the same ABI, errors, EIP-712 domain
/// {name: "Permit2", chainId, verifyingContract} and typed data, so that code that works against it works against
/// the real Permit2. It is placed at Permit2's canonical address with `anvil_setCode`: it keeps no constructor
/// state, and computes its domain separator on every call. Both halves pull tokens the owner approved to it.
/// Signature transfers: an owner signs `PermitTransferFrom(TokenPermissions permitted, address spender, uint256
/// nonce, uint256 deadline)`; only `spender` may use it, once (the nonce's bit in the owner's unordered bitmap),
/// before the deadline, for at most the permitted amount.
/// Allowances: an owner sets (by `approve`, or by signing a `PermitSingle` with its next ordered nonce for the
/// token and spender) an amount the spender may move with `transferFrom` until an expiration; the maximum
/// uint160 amount is never spent down; `lockdown` zeroes allowances, `invalidateNonces` burns unused permits.
/// (The batch `permit` and `transferFrom` overloads are left out.)
contract TestPermit2 {
    struct TokenPermissions {
        address token;
        uint256 amount;
    }

    struct PermitTransferFrom {
        TokenPermissions permitted;
        uint256 nonce;
        uint256 deadline;
    }

    struct SignatureTransferDetails {
        address to;
        uint256 requestedAmount;
    }

    struct PermitDetails {
        address token;
        uint160 amount;
        /// When the allowance ends (it is usable up to and including this second); 0 means this block.
        uint48 expiration;
        /// The owner's ordered nonce for this token and spender.
        uint48 nonce;
    }

    struct PermitSingle {
        PermitDetails details;
        address spender;
        uint256 sigDeadline;
    }

    struct PackedAllowance {
        uint160 amount;
        uint48 expiration;
        uint48 nonce;
    }

    struct TokenSpenderPair {
        address token;
        address spender;
    }

    error SignatureExpired(uint256 signatureDeadline);
    error InvalidNonce();
    error InvalidAmount(uint256 maxAmount);
    error InvalidSignatureLength();
    error InvalidSignature();
    error InvalidSigner();
    error InvalidContractSignature();
    error TransferFailed();
    error AllowanceExpired(uint256 deadline);
    error InsufficientAllowance(uint256 amount);
    error ExcessiveInvalidation();

    event UnorderedNonceInvalidation(address indexed owner, uint256 word, uint256 mask);
    event Approval(address indexed owner, address indexed token, address indexed spender, uint160 amount, uint48 expiration);
    event Permit(
        address indexed owner, address indexed token, address indexed spender, uint160 amount, uint48 expiration, uint48 nonce
    );
    event Lockdown(address indexed owner, address token, address spender);
    event NonceInvalidation(address indexed owner, address indexed token, address indexed spender, uint48 newNonce, uint48 oldNonce);

    bytes32 public constant _TOKEN_PERMISSIONS_TYPEHASH = keccak256("TokenPermissions(address token,uint256 amount)");
    bytes32 public constant _PERMIT_TRANSFER_FROM_TYPEHASH = keccak256(
        "PermitTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline)TokenPermissions(address token,uint256 amount)"
    );
    bytes32 public constant _PERMIT_DETAILS_TYPEHASH =
        keccak256("PermitDetails(address token,uint160 amount,uint48 expiration,uint48 nonce)");
    bytes32 public constant _PERMIT_SINGLE_TYPEHASH = keccak256(
        "PermitSingle(PermitDetails details,address spender,uint256 sigDeadline)PermitDetails(address token,uint160 amount,uint48 expiration,uint48 nonce)"
    );
    bytes32 private constant DOMAIN_TYPEHASH = keccak256("EIP712Domain(string name,uint256 chainId,address verifyingContract)");
    bytes32 private constant HASHED_NAME = keccak256("Permit2");
    bytes4 private constant ERC1271_MAGIC_VALUE = 0x1626ba7e;

    /// @notice owner => word position => bitmap of used nonces (nonce = word << 8 | bit).
    mapping(address => mapping(uint256 => uint256)) public nonceBitmap;

    /// @notice owner => token => spender => what the spender may still move, until when, and the next permit nonce.
    mapping(address => mapping(address => mapping(address => PackedAllowance))) public allowance;

    /// @notice The EIP-712 domain separator on the current chain at this address.
    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, HASHED_NAME, block.chainid, address(this)));
    }

    /// @notice Moves `transferDetails.requestedAmount` of the permitted token from `owner` to `transferDetails.to`
    /// with `owner`'s signature of `transfer` for the caller.
    function permitTransferFrom(
        PermitTransferFrom memory transfer,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes calldata signature
    ) external {
        if (block.timestamp > transfer.deadline) revert SignatureExpired(transfer.deadline);
        if (transferDetails.requestedAmount > transfer.permitted.amount) revert InvalidAmount(transfer.permitted.amount);
        _useUnorderedNonce(owner, transfer.nonce);
        bytes32 structHash = keccak256(
            abi.encode(
                _PERMIT_TRANSFER_FROM_TYPEHASH,
                keccak256(abi.encode(_TOKEN_PERMISSIONS_TYPEHASH, transfer.permitted.token, transfer.permitted.amount)),
                msg.sender,
                transfer.nonce,
                transfer.deadline
            )
        );
        _verify(signature, keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash)), owner);
        _safeTransferFrom(transfer.permitted.token, owner, transferDetails.to, transferDetails.requestedAmount);
    }

    /// @notice Marks the caller's nonces in `mask` of word `wordPos` used, so no permit with them can be used.
    function invalidateUnorderedNonces(uint256 wordPos, uint256 mask) external {
        nonceBitmap[msg.sender][wordPos] |= mask;
        emit UnorderedNonceInvalidation(msg.sender, wordPos, mask);
    }

    /// @notice Lets `spender` move up to `amount` of the caller's `token` until `expiration` (0: this block only).
    /// Leaves the nonce alone, so a signed permit stays usable.
    function approve(address token, address spender, uint160 amount, uint48 expiration) external {
        PackedAllowance storage allowed = allowance[msg.sender][token][spender];
        allowed.amount = amount;
        allowed.expiration = expiration == 0 ? uint48(block.timestamp) : expiration;
        emit Approval(msg.sender, token, spender, amount, expiration);
    }

    /// @notice Sets the allowance `owner` signed in `permitSingle`; anyone may submit it, once (its nonce is the
    /// owner's current one for the token and spender, and moves on).
    function permit(address owner, PermitSingle memory permitSingle, bytes calldata signature) external {
        if (block.timestamp > permitSingle.sigDeadline) revert SignatureExpired(permitSingle.sigDeadline);
        PermitDetails memory details = permitSingle.details;
        bytes32 structHash = keccak256(
            abi.encode(
                _PERMIT_SINGLE_TYPEHASH,
                keccak256(abi.encode(_PERMIT_DETAILS_TYPEHASH, details.token, details.amount, details.expiration, details.nonce)),
                permitSingle.spender,
                permitSingle.sigDeadline
            )
        );
        _verify(signature, keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash)), owner);
        PackedAllowance storage allowed = allowance[owner][details.token][permitSingle.spender];
        if (allowed.nonce != details.nonce) revert InvalidNonce();
        allowed.amount = details.amount;
        allowed.expiration = details.expiration == 0 ? uint48(block.timestamp) : details.expiration;
        unchecked {
            allowed.nonce = details.nonce + 1;
        }
        emit Permit(owner, details.token, permitSingle.spender, details.amount, details.expiration, details.nonce);
    }

    /// @notice Moves `amount` of `token` from `from` to `to` within the allowance `from` gave the caller.
    function transferFrom(address from, address to, uint160 amount, address token) external {
        PackedAllowance storage allowed = allowance[from][token][msg.sender];
        if (block.timestamp > allowed.expiration) revert AllowanceExpired(allowed.expiration);
        uint160 maxAmount = allowed.amount;
        // The maximum amount stands for "unlimited", as in ERC-20 allowances.
        if (maxAmount != type(uint160).max) {
            if (amount > maxAmount) revert InsufficientAllowance(maxAmount);
            allowed.amount = maxAmount - amount;
        }
        _safeTransferFrom(token, from, to, amount);
    }

    /// @notice Zeroes the caller's allowances for each token and spender pair.
    function lockdown(TokenSpenderPair[] calldata approvals) external {
        for (uint256 i = 0; i < approvals.length; ++i) {
            allowance[msg.sender][approvals[i].token][approvals[i].spender].amount = 0;
            emit Lockdown(msg.sender, approvals[i].token, approvals[i].spender);
        }
    }

    /// @notice Moves the caller's nonce for `token` and `spender` on to `newNonce`, so no permit signed with an
    /// earlier one can be used; at most 65,535 at a time.
    function invalidateNonces(address token, address spender, uint48 newNonce) external {
        uint48 oldNonce = allowance[msg.sender][token][spender].nonce;
        if (newNonce <= oldNonce) revert InvalidNonce();
        if (newNonce - oldNonce > type(uint16).max) revert ExcessiveInvalidation();
        allowance[msg.sender][token][spender].nonce = newNonce;
        emit NonceInvalidation(msg.sender, token, spender, newNonce, oldNonce);
    }

    function _useUnorderedNonce(address from, uint256 nonce) private {
        uint256 wordPos = nonce >> 8;
        uint256 bit = 1 << (nonce & 0xff);
        uint256 flipped = nonceBitmap[from][wordPos] ^= bit;
        if (flipped & bit == 0) revert InvalidNonce();
    }

    /// @dev 65-byte (r, s, v) or 64-byte EIP-2098 signatures from accounts without code; EIP-1271 for contracts.
    function _verify(bytes calldata signature, bytes32 digest, address claimedSigner) private view {
        if (claimedSigner.code.length > 0) {
            bytes4 magic = IPermit2Signer(claimedSigner).isValidSignature(digest, signature);
            if (magic != ERC1271_MAGIC_VALUE) revert InvalidContractSignature();
            return;
        }
        bytes32 r;
        bytes32 s;
        uint8 v;
        if (signature.length == 65) {
            (r, s) = abi.decode(signature, (bytes32, bytes32));
            v = uint8(signature[64]);
        } else if (signature.length == 64) {
            bytes32 vs;
            (r, vs) = abi.decode(signature, (bytes32, bytes32));
            s = vs & bytes32(uint256(type(int256).max));
            v = uint8(uint256(vs >> 255)) + 27;
        } else {
            revert InvalidSignatureLength();
        }
        address signer = ecrecover(digest, v, r, s);
        if (signer == address(0)) revert InvalidSignature();
        if (signer != claimedSigner) revert InvalidSigner();
    }

    /// @dev Accepts tokens that return nothing from `transferFrom` (Tether on Ethereum) as well as `true`.
    function _safeTransferFrom(address token, address from, address to, uint256 amount) private {
        if (token.code.length == 0) revert TransferFailed();
        (bool success, bytes memory data) = token.call(abi.encodeWithSignature("transferFrom(address,address,uint256)", from, to, amount));
        if (!success || (data.length != 0 && !abi.decode(data, (bool)))) revert TransferFailed();
    }
}
