// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title Gas-burning wallet
/// @notice A hostile contract wallet for tests of gas griefing: its EIP-1271 check accepts its owner's
/// 65-byte ECDSA signatures like TestSmartWallet, but first burns `burn` rounds of hashing, which the
/// owner sets at will (cheap when a confirm is verified, expensive when the executor sends).
contract GasBurningWallet {
    bytes4 private constant ERC1271_MAGIC_VALUE = 0x1626ba7e;

    address public immutable owner;
    uint256 public burn;

    constructor(address owner_) {
        owner = owner_;
    }

    /// @notice How many rounds of hashing each signature check burns.
    function setBurn(uint256 burn_) external {
        require(msg.sender == owner, "not the owner");
        burn = burn_;
    }

    /// @notice EIP-1271: whether `signature` over `hash` is the owner's, after burning gas.
    function isValidSignature(bytes32 hash, bytes memory signature) external view returns (bytes4) {
        bytes32 acc = hash;
        for (uint256 i = 0; i < burn; i++) {
            acc = keccak256(abi.encode(acc, i));
        }
        if (signature.length != 65 || acc == bytes32(0)) return 0xffffffff;
        bytes32 r;
        bytes32 s;
        uint8 v;
        assembly {
            r := mload(add(signature, 0x20))
            s := mload(add(signature, 0x40))
            v := byte(0, mload(add(signature, 0x60)))
        }
        address signer = ecrecover(hash, v, r, s);
        return signer != address(0) && signer == owner ? ERC1271_MAGIC_VALUE : bytes4(0xffffffff);
    }
}
