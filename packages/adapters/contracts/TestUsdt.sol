// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title Test Tether USD
/// @notice A minimal USDT-style ERC-20 for tests and local development: 6 decimals, owner-only minting, no
/// EIP-3009 and no EIP-2612, and Tether's approve rule: changing a non-zero allowance to another non-zero value
/// reverts, so a wallet must approve 0 first. Like Tether's contract on Ethereum, `transfer`, `transferFrom` and
/// `approve` return nothing (no `bool`): whatever moves it must accept an empty answer.
contract TestUsdt {
    string public constant name = "Test Tether USD";
    string public constant symbol = "TUSDT";
    uint8 public constant decimals = 6;

    address public owner;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor() {
        owner = msg.sender;
    }

    /// @notice Creates `value` tokens for `to`; owner only.
    function mint(address to, uint256 value) external {
        require(msg.sender == owner, "TestUsdt: caller is not the owner");
        require(to != address(0), "TestUsdt: mint to the zero address");
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    function transfer(address to, uint256 value) external {
        _transfer(msg.sender, to, value);
    }

    /// @notice Tether's rule: a non-zero allowance only changes through zero.
    function approve(address spender, uint256 value) external {
        require(value == 0 || allowance[msg.sender][spender] == 0, "TestUsdt: approve from non-zero to non-zero");
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
    }

    function transferFrom(address from, address to, uint256 value) external {
        uint256 allowed = allowance[from][msg.sender];
        require(allowed >= value, "TestUsdt: transfer amount exceeds allowance");
        if (allowed != type(uint256).max) allowance[from][msg.sender] = allowed - value;
        _transfer(from, to, value);
    }

    function _transfer(address from, address to, uint256 value) private {
        require(to != address(0), "TestUsdt: transfer to the zero address");
        require(balanceOf[from] >= value, "TestUsdt: transfer amount exceeds balance");
        balanceOf[from] -= value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}
