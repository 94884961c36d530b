/**
 * Realistic JSON bodies of the wire resources, keys in the spec's table order, for tests and
 * documentation. Not part of the package's public surface (not re-exported by `index.ts`).
 */

const usdc = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
const buyer = "0x1a2B3c4D5e6F7a8B9c0D1e2F3a4B5c6D7e8F9a0B"
const collector = "0x9F8e7D6c5B4a39281706f5E4d3C2b1A0F9e8D7c6"

/** EIP-712 typed data of an EIP-3009 `TransferWithAuthorization` (API rules §10, pull payments). */
const transferWithAuthorization = {
  types: {
    EIP712Domain: [
      { name: "name", type: "string" },
      { name: "version", type: "string" },
      { name: "chainId", type: "uint256" },
      { name: "verifyingContract", type: "address" }
    ],
    TransferWithAuthorization: [
      { name: "from", type: "address" },
      { name: "to", type: "address" },
      { name: "value", type: "uint256" },
      { name: "validAfter", type: "uint256" },
      { name: "validBefore", type: "uint256" },
      { name: "nonce", type: "bytes32" }
    ]
  },
  primaryType: "TransferWithAuthorization",
  domain: { name: "USD Coin", version: "2", chainId: 8453, verifyingContract: usdc },
  message: {
    from: buyer,
    to: collector,
    value: "12500000",
    validAfter: 0,
    validBefore: 1767226200,
    nonce: "0x6f1c2d3e4a5b69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0"
  }
}

/** The data collection JSON Schema described in the spec ("CollectData"). */
const travelRuleSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  additionalProperties: false,
  properties: {
    fullName: { type: "string", minLength: 1 },
    dob: { type: "string", format: "date", pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}$" },
    pobCountry: { type: "string", pattern: "^[A-Z]{2}$" },
    pobAddress: { type: "string", maxLength: 200 },
    porCountry: { type: "string", pattern: "^[A-Z]{2}$" },
    porAddress: { type: "string", maxLength: 200 },
    tosConfirmed: { type: "boolean", const: true }
  },
  required: ["fullName", "dob", "tosConfirmed"],
  anyOf: [{ required: ["pobCountry", "pobAddress"] }, { required: ["porCountry", "porAddress"] }]
}

const amountUsd = {
  unit: "iso4217/USD",
  value: "1250",
  display: {
    assetName: "US Dollar",
    assetSymbol: "USD",
    decimals: 2,
    iconUrl: null,
    networkIconUrl: null,
    networkName: null
  }
}

const amountUsdc = {
  unit: `caip19/eip155:8453/erc20:${usdc}`,
  value: "12500000",
  display: {
    assetName: "USD Coin",
    assetSymbol: "USDC",
    decimals: 6,
    iconUrl: "https://assets.example.com/tokens/usdc.png",
    networkIconUrl: "https://assets.example.com/networks/base.png",
    networkName: "Base"
  }
}

const amountUsdt = {
  unit: "caip19/eip155:1/erc20:0xdAC17F958D2ee523a2206206994597C13D831ec7",
  value: "12500000",
  display: {
    assetName: "Tether USD",
    assetSymbol: "USDT",
    decimals: 6,
    iconUrl: "https://assets.example.com/tokens/usdt.png",
    networkIconUrl: "https://assets.example.com/networks/ethereum.png",
    networkName: "Ethereum"
  }
}

const walletRpcAction = {
  type: "walletRpc",
  data: {
    chain_id: "eip155:8453",
    method: "eth_signTypedData_v4",
    params: [buyer, JSON.stringify(transferWithAuthorization)]
  }
}

const buildAction = {
  type: "build",
  data: { data: "bld_01JH7Q3M9V2X8Z4K6N5P0R1S2T.eyJhc3NldCI6InVzZHQifQ" }
}

const collectData = {
  fields: [
    { id: "fullName", name: "Full name", required: true, type: "text" },
    { id: "dob", name: "Date of birth", required: true, type: "date" },
    { id: "pobCountry", name: "Country of birth", required: false, type: "text" },
    { id: "pobAddress", name: "Place of birth", required: false, type: "text" },
    { id: "porCountry", name: "Country of residence", required: false, type: "text" },
    { id: "porAddress", name: "Address of residence", required: false, type: "text" },
    { id: "tosConfirmed", name: "I accept the terms of service", required: true, type: "checkbox" }
  ],
  schema: travelRuleSchema,
  url: `https://collect.example.com/?paymentId=pay_01JH7Q3M9V2X8Z4K6N5P0R1S2T&account=eip155:8453:${buyer}`
}

const pullOption = {
  id: "opt.eyJwIjoicGF5XzAxSkg3UTNNOVYyWDhaNEs2TjVQMFIxUzJUIiwiYSI6InVzZGMifQ.c2lnbmF0dXJl",
  account: `eip155:8453:${buyer}`,
  amount: amountUsdc,
  etaS: 5,
  actions: [walletRpcAction],
  collectData,
  expiresAt: 1767225900
}

const pushOption = {
  id: "opt.eyJwIjoicGF5XzAxSkg3UTNNOVYyWDhaNEs2TjVQMFIxUzJUIiwiYSI6InVzZHQifQ.c2lnbmF0dXJl",
  account: `eip155:1:${buyer}`,
  amount: amountUsdt,
  etaS: 60,
  actions: [buildAction],
  collectData: null,
  expiresAt: null
}

const paymentInfo = {
  status: "requires_action",
  amount: amountUsd,
  expiresAt: 1767226200,
  merchant: { name: "Coffee Corner", iconUrl: "https://assets.example.com/merchants/coffee.png" },
  buyer: null
}

/** Example JSON bodies, by resource. */
export const wireExamples = {
  buyerAddress: buyer,
  transferWithAuthorization,
  amountUsd,
  amountUsdc,
  amountUsdt,
  walletRpcAction,
  buildAction,
  collectData,
  pullOption,
  pushOption,
  paymentInfo,
  paymentInfoWithBuyer: {
    ...paymentInfo,
    status: "processing",
    buyer: {
      accountCaip10: `eip155:8453:${buyer}`,
      accountProviderName: "Example Wallet",
      accountProviderIcon: "https://assets.example.com/wallets/example.png"
    }
  },
  optionsRequest: {
    accounts: [`eip155:8453:${buyer}`, `eip155:1:${buyer}`],
    refresh: null
  },
  optionsResponse: {
    collectData,
    info: paymentInfo,
    options: [pullOption, pushOption]
  },
  fetchRequest: { optionId: pushOption.id, data: buildAction.data.data },
  fetchResponse: {
    actions: [
      {
        type: "walletRpc",
        data: {
          chain_id: "eip155:1",
          method: "eth_sendTransaction",
          params: [
            {
              from: buyer,
              to: "0xdAC17F958D2ee523a2206206994597C13D831ec7",
              data: `0xa9059cbb${collector.slice(2).toLowerCase().padStart(64, "0")}${(12_500_000).toString(16).padStart(64, "0")}1f2e3d4c5b6a79880f1e2d3c4b5a6978`,
              value: "0x0"
            }
          ]
        }
      }
    ]
  },
  confirmRequest: {
    optionId: pullOption.id,
    results: [
      {
        type: "walletRpc",
        data: [
          "0x3f5a1c9e7b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a1c3e5b7d9f2a4c6e8b0d1f3a5c7e9b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a1c3e5b7d9f2a4c6e8b0d1f3a5c7e1b"
        ]
      }
    ],
    collectedData: {
      fields: [
        { id: "fullName", value: "Ada Lovelace" },
        { id: "dob", value: "1815-12-10" },
        { id: "porCountry", value: "GB" },
        { id: "porAddress", value: "12 St James's Square, London" },
        { id: "tosConfirmed", value: "true" }
      ]
    }
  },
  confirmResponse: {
    status: "processing",
    isFinal: false,
    pollInMs: 1000,
    info: null
  },
  confirmResponseWithTx: {
    status: "processing",
    isFinal: false,
    pollInMs: 1000,
    info: { txId: "0x9c2e4b6d8f0a1c3e5b7d9f2a4c6e8b0d1f3a5c7e9b2d4f6a8c0e1b3d5f7a9c2e", optionAmount: amountUsdc }
  },
  gatewayStatus: { status: "requires_action", isFinal: false, pollInMs: 2000 },
  gatewayStatusFinal: { status: "succeeded", isFinal: true, pollInMs: null },
  cancelResponse: {
    paymentId: "pay_01JH7Q3M9V2X8Z4K6N5P0R1S2T",
    status: "cancelled",
    cancelledAt: 1767225400,
    cancelledReason: "cancelled_by_user"
  },
  createPaymentRequest: {
    amount: { unit: "iso4217/USD", value: "1250" },
    referenceId: "order-2026-0001",
    checkout: {
      successUrl: "https://shop.example.com/checkout/success",
      errorUrl: "https://shop.example.com/checkout/error"
    }
  },
  createPaymentResponse: {
    paymentId: "pay_01JH7Q3M9V2X8Z4K6N5P0R1S2T",
    gatewayUrl: "https://checkout.example.com/pay_01JH7Q3M9V2X8Z4K6N5P0R1S2T",
    x402Url: "https://api.example.com/v1/x402/payments/pay_01JH7Q3M9V2X8Z4K6N5P0R1S2T",
    status: "pending",
    expiresAt: 1767226200,
    isFinal: false,
    pollInMs: 2000
  },
  merchantStatus: { status: "succeeded", isFinal: true }
}
