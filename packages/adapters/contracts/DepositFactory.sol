// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice What a forwarder asks its factory: where swept tokens go.
interface IDepositDestination {
    function destination() external view returns (address);
}

/// @notice The two ERC-20 calls a sweep makes.
interface IERC20Sweepable {
    function balanceOf(address account) external view returns (uint256);
    function transfer(address to, uint256 value) external returns (bool);
}

/// @title Deposit forwarder
/// @notice Sits at one payment's deposit address. The factory deploys it with CREATE2 (salt from the payment id) only
/// when it sweeps, so the address is known, and can receive tokens, before any transaction. It sends its whole balance
/// of a token to the factory's destination, when the factory asks, and nowhere else.
contract DepositForwarder {
    address public immutable factory;

    constructor() {
        factory = msg.sender;
    }

    /// @notice Sends this address's whole balance of `token` to the factory's destination; the factory only.
    function sweep(address token) external returns (uint256 amount) {
        require(msg.sender == factory, "DepositForwarder: caller is not the factory");
        amount = IERC20Sweepable(token).balanceOf(address(this));
        if (amount == 0) return 0;
        address to = IDepositDestination(factory).destination();
        // Tokens that answer nothing (USDT-style) count as success when the call did not revert.
        (bool ok, bytes memory answer) =
            token.call(abi.encodeWithSelector(IERC20Sweepable.transfer.selector, to, amount));
        require(ok && (answer.length == 0 || abi.decode(answer, (bool))), "DepositForwarder: transfer failed");
    }
}

/// @title Deposit factory
/// @notice Computes deposit addresses (CREATE2 of `DepositForwarder` under a salt) and, for its owner (the service's
/// executor account, which pays the gas), deploys and sweeps any number of them in one transaction. Sweeping is
/// idempotent: it moves what is there now, so a sweep sent twice moves nothing twice.
contract DepositFactory is IDepositDestination {
    address public owner;
    /// @notice Where every forwarder of this factory sends what it sweeps (the service's collection address).
    address public destination;

    event OwnerChanged(address indexed owner);
    event DestinationChanged(address indexed destination);
    event Swept(bytes32 indexed salt, address indexed forwarder, address indexed token, uint256 amount);

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
        bytes32 codeHash = keccak256(type(DepositForwarder).creationCode);
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, codeHash)))));
    }

    /// @notice For each salt: deploys its forwarder unless it is there already, then sweeps its whole balance of
    /// `token` to `destination`. Answers the total swept; the owner only.
    function sweep(address token, bytes32[] calldata salts) external onlyOwner returns (uint256 total) {
        for (uint256 i = 0; i < salts.length; i++) {
            address forwarder = addressOf(salts[i]);
            if (forwarder.code.length == 0) new DepositForwarder{salt: salts[i]}();
            uint256 amount = DepositForwarder(forwarder).sweep(token);
            emit Swept(salts[i], forwarder, token, amount);
            total += amount;
        }
    }
}
