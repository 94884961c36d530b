// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import "./TestSmartWallet.sol";

/// @title Gas-burning wallet
/// @notice A hostile contract wallet for tests of gas griefing: its EIP-1271 check accepts its owner's
/// signatures like TestSmartWallet, but first burns `burn` rounds of hashing, which the owner sets at
/// will (cheap when a confirm is verified, expensive when the executor sends).
contract GasBurningWallet is TestSmartWallet {
    uint256 public burn;

    constructor(address owner_) TestSmartWallet(owner_) {}

    /// @notice How many rounds of hashing each signature check burns.
    function setBurn(uint256 burn_) external {
        require(msg.sender == owner, "not the owner");
        burn = burn_;
    }

    /// @notice EIP-1271: whether `signature` over `hash` is the owner's, after burning gas.
    function isValidSignature(bytes32 hash, bytes memory signature) public view override returns (bytes4) {
        bytes32 acc = hash;
        for (uint256 i = 0; i < burn; i++) {
            acc = keccak256(abi.encode(acc, i));
        }
        if (acc == bytes32(0)) return 0xffffffff;
        return super.isValidSignature(hash, signature);
    }
}
