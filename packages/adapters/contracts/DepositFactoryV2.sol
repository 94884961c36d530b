// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IDepositDestination, IERC20Sweepable} from "./DepositFactory.sol";

/// @title Deposit forwarder, version 2
/// @notice Sits at one payment's deposit address, like the first version, and also takes the chain's own coin (ETH,
/// POL): before its deployment the address holds it like any account, after it `receive` accepts it. It sends its whole
/// balance of a token, or of the coin (`ETHER`), to the factory's destination, when the factory asks, and nowhere else.
contract DepositForwarderV2 {
    /// @notice Stands for the chain's own coin where a token address is expected.
    address public constant ETHER = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;
    address public immutable factory;

    constructor() {
        factory = msg.sender;
    }

    /// @notice Takes the coin from anyone, with the 2,300 gas of a Solidity `transfer` too.
    receive() external payable {}

    /// @notice Sends this address's whole balance of `token` (or of the coin) to the factory's destination; the factory only.
    function sweep(address token) external returns (uint256 amount) {
        require(msg.sender == factory, "DepositForwarder: caller is not the factory");
        address to = IDepositDestination(factory).destination();
        if (token == ETHER) {
            amount = address(this).balance;
            if (amount == 0) return 0;
            (bool sent,) = to.call{value: amount}("");
            require(sent, "DepositForwarder: ether transfer failed");
            return amount;
        }
        amount = IERC20Sweepable(token).balanceOf(address(this));
        if (amount == 0) return 0;
        // Tokens that answer nothing (USDT-style) count as success when the call did not revert.
        (bool ok, bytes memory answer) =
            token.call(abi.encodeWithSelector(IERC20Sweepable.transfer.selector, to, amount));
        require(ok && (answer.length == 0 || abi.decode(answer, (bool))), "DepositForwarder: transfer failed");
    }
}

/// @title Deposit factory, version 2
/// @notice The first factory's duties for `DepositForwarderV2`: computes deposit addresses (CREATE2 under a salt) and,
/// for its owner (the service's executor account, which pays the gas), deploys and sweeps any number of them in one
/// transaction, in a token or in the coin (`ETHER`). Each sweep emits `Swept` with where it went and what it moved,
/// so that what a sweep moved is read from the chain (the coin leaves no `Transfer` log). Sweeping is idempotent: it
/// moves what is there now, so a sweep sent twice moves nothing twice. Its forwarders' code differs from the first
/// version's, and so do its addresses: each factory sweeps only the addresses it computes.
contract DepositFactoryV2 is IDepositDestination {
    /// @notice Which factory this is (the first answers nothing).
    uint256 public constant version = 2;
    address public owner;
    /// @notice Where every forwarder of this factory sends what it sweeps (the service's collection address).
    address public destination;

    event OwnerChanged(address indexed owner);
    event DestinationChanged(address indexed destination);
    event Swept(bytes32 indexed salt, address indexed forwarder, address indexed token, address to, uint256 amount);

    constructor(address owner_, address destination_) {
        require(owner_ != address(0) && destination_ != address(0), "DepositFactory: zero address");
        owner = owner_;
        destination = destination_;
        emit OwnerChanged(owner_);
        emit DestinationChanged(destination_);
    }

    modifier onlyOwner() {
        require(msg.sender == owner, "DepositFactory: caller is not the owner");
        _;
    }

    /// @notice Changes where sweeps go; the owner only.
    function setDestination(address destination_) external onlyOwner {
        require(destination_ != address(0), "DepositFactory: zero address");
        destination = destination_;
        emit DestinationChanged(destination_);
    }

    /// @notice Hands the factory to another owner; the owner only.
    function transferOwnership(address owner_) external onlyOwner {
        require(owner_ != address(0), "DepositFactory: zero address");
        owner = owner_;
        emit OwnerChanged(owner_);
    }

    /// @notice The deposit address of `salt`, deployed or not.
    function addressOf(bytes32 salt) public view returns (address) {
        bytes32 codeHash = keccak256(type(DepositForwarderV2).creationCode);
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, codeHash)))));
    }

    /// @notice For each salt: deploys its forwarder unless it is there already, then sweeps its whole balance of
    /// `token` (or of the coin, `ETHER`) to `destination`. Answers the total swept; the owner only.
    function sweep(address token, bytes32[] calldata salts) external onlyOwner returns (uint256 total) {
        for (uint256 i = 0; i < salts.length; i++) {
            address forwarder = addressOf(salts[i]);
            if (forwarder.code.length == 0) new DepositForwarderV2{salt: salts[i]}();
            uint256 amount = DepositForwarderV2(payable(forwarder)).sweep(token);
            emit Swept(salts[i], forwarder, token, destination, amount);
            total += amount;
        }
    }
}
