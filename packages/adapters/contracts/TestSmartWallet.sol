// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title Test smart wallet
/// @notice A minimal contract wallet for tests of EIP-1271 signatures: it accepts a hash signed (65-byte ECDSA,
/// low `s`) by its owner, the way many smart accounts do.
contract TestSmartWallet {
    bytes4 private constant ERC1271_MAGIC_VALUE = 0x1626ba7e;
    uint256 private constant MAX_S = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    /// @notice EIP-1271: whether `signature` over `hash` is the owner's.
    function isValidSignature(bytes32 hash, bytes memory signature) public view virtual returns (bytes4) {
        if (signature.length != 65) return 0xffffffff;
        bytes32 r;
        bytes32 s;
        uint8 v;
        assembly {
            r := mload(add(signature, 0x20))
            s := mload(add(signature, 0x40))
            v := byte(0, mload(add(signature, 0x60)))
        }
        if (uint256(s) > MAX_S) return 0xffffffff;
        address signer = ecrecover(hash, v, r, s);
        return signer != address(0) && signer == owner ? ERC1271_MAGIC_VALUE : bytes4(0xffffffff);
    }
}
