// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title Test price feed
/// @notice A Chainlink-style AggregatorV3 whose answer the owner sets, for pricing a non-stable test asset in
/// tests and local development. Every `setAnswer` starts a new round; past rounds stay readable.
contract TestPriceFeed {
    struct Round {
        int256 answer;
        uint256 updatedAt;
    }

    uint256 public constant version = 4;

    address public owner;
    uint8 public immutable decimals;
    string public description;
    uint80 public latestRound;
    mapping(uint80 => Round) private rounds;

    event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt);

    constructor(uint8 decimals_, string memory description_, int256 initialAnswer) {
        owner = msg.sender;
        decimals = decimals_;
        description = description_;
        _record(initialAnswer);
    }

    /// @notice Publishes a new answer as a new round; owner only.
    function setAnswer(int256 answer) external {
        require(msg.sender == owner, "TestPriceFeed: caller is not the owner");
        _record(answer);
    }

    /// @notice The latest answer (legacy AggregatorInterface).
    function latestAnswer() external view returns (int256) {
        return rounds[latestRound].answer;
    }

    function latestRoundData()
        external
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        return getRoundData(latestRound);
    }

    function getRoundData(uint80 roundId)
        public
        view
        returns (uint80, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        Round memory round = rounds[roundId];
        require(round.updatedAt != 0, "TestPriceFeed: no data present");
        return (roundId, round.answer, round.updatedAt, round.updatedAt, roundId);
    }

    function _record(int256 answer) private {
        latestRound += 1;
        rounds[latestRound] = Round(answer, block.timestamp);
        emit AnswerUpdated(answer, latestRound, block.timestamp);
    }
}
