// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title Test forwarder
/// @notice Passes any call on to its target, the way a relayer or a smart wallet does: the token sees
/// this contract as the transaction's `to`, not itself. For tests of transfers made through wrappers.
contract TestForwarder {
    function forward(address target, bytes calldata data) external returns (bytes memory) {
        (bool ok, bytes memory answer) = target.call(data);
        if (!ok) {
            assembly {
                revert(add(answer, 0x20), mload(answer))
            }
        }
        return answer;
    }
}

/// @title Test multicall
/// @notice Makes several calls in one transaction (a Multicall3 `aggregate` without the extras): an
/// exchange's batched withdrawal, or an authorization executed next to other calls. Calls made with
/// its own balance (a `transfer`) pay from this contract.
contract TestMulticall {
    struct Call {
        address target;
        bytes data;
    }

    function aggregate(Call[] calldata calls) external returns (bytes[] memory answers) {
        answers = new bytes[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            (bool ok, bytes memory answer) = calls[i].target.call(calls[i].data);
            if (!ok) {
                assembly {
                    revert(add(answer, 0x20), mload(answer))
                }
            }
            answers[i] = answer;
        }
    }
}

/// @notice Sends the ether it is given on with 2,300 gas (what Solidity's `transfer` gives), as many contract wallets
/// and exchanges' contracts do: an internal transfer, for tests of addresses that must take it.
contract TestEtherSender {
    function send(address payable to) external payable {
        (bool sent,) = to.call{value: msg.value, gas: 2300}("");
        require(sent, "TestEtherSender: refused");
    }
}
