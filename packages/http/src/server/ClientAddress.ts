/**
 * Who sent a request, and whether it came over TLS, as far as this service can trust it: the socket's
 * peer, unless that peer is one of the operator's proxies (`TRUSTED_PROXIES`, addresses or CIDR
 * blocks). Then `X-Forwarded-For` is read right to left, each trusted hop skipped: the first address
 * that is not a trusted proxy is the client (what a client writes itself sits further left and is
 * never reached). TLS is the nearest trusted proxy's `X-Forwarded-Proto` (its last value); the
 * service itself speaks plain HTTP. Nothing forwarded is believed from any other peer.
 *
 * Limits keyed by client use {@link throttleKey}: an IPv6 client is its /64, the block one
 * subscriber usually holds, so rotating addresses inside it gains nothing.
 *
 * @module
 */
import { Context, Effect, Layer, Option, Result, Schema } from "effect"
import type { HttpServerRequest } from "effect/http"
import { IpNetwork, NetAddress } from "effect/net"
import { ServerSettings } from "../settings/ServerSettings.ts"

/** `TRUSTED_PROXIES` holds an entry that is no address or CIDR block. */
export class InvalidTrustedProxies extends Schema.TaggedError<InvalidTrustedProxies>()("InvalidTrustedProxies", {
  message: Schema.String
}) {}

/** The trusted proxies: whether an address is one of them. */
export type TrustedProxies = (address: NetAddress.IpAddress) => boolean

/** Parses a bare address (`::ffff:` IPv4 as IPv4, `[…]` brackets allowed), else `undefined`. */
export const parseAddress = (text: string): NetAddress.IpAddress | undefined => {
  const trimmed = text.trim()
  const bare = trimmed.startsWith("[") && trimmed.endsWith("]") ? trimmed.slice(1, -1) : trimmed
  const parsed = NetAddress.ipFromString(bare)
  return Result.isSuccess(parsed) ? NetAddress.toCanonical(parsed.success) : undefined
}

/** Parses `TRUSTED_PROXIES`: comma-separated addresses and CIDR blocks; blank, none. */
export const parseTrustedProxies = (text: string): Result.Result<TrustedProxies, InvalidTrustedProxies> => {
  const networks: Array<IpNetwork.IpNetwork> = []
  for (const entry of text.split(",").map((part) => part.trim()).filter((part) => part !== "")) {
    const address = parseAddress(entry)
    const network = address === undefined ? IpNetwork.fromString(entry) : IpNetwork.fromAddress(address, NetAddress.width(address))
    if (Result.isFailure(network)) {
      return Result.fail(new InvalidTrustedProxies({ message: `TRUSTED_PROXIES: ${JSON.stringify(entry.slice(0, 60))} is not an IP address or CIDR block.` }))
    }
    networks.push(network.success)
  }
  return Result.succeed((address) => networks.some((network) => IpNetwork.contains(network, address)))
}

/** Where a request came from. */
export interface Client {
  /** The client's address (canonical text), or `unknown` when the server was not told its peer. */
  readonly address: string
  /** Whether it reached the service over TLS (a trusted proxy said so). */
  readonly overTls: boolean
  /** Whether its peer is a trusted proxy (such peers are not held to the per-client connection cap). */
  readonly viaTrustedProxy: boolean
}

const lastValue = (header: string | undefined) => header?.split(",").at(-1)?.trim().toLowerCase()

/** The client of a request whose socket peer is `peer`, with its headers (see the module comment). */
export const clientOf = (
  trusted: TrustedProxies,
  peer: string | undefined,
  headers: { readonly [name: string]: string | undefined }
): Client => {
  const peerAddress = peer === undefined ? undefined : parseAddress(peer)
  if (peerAddress === undefined) return { address: "unknown", overTls: false, viaTrustedProxy: false }
  if (!trusted(peerAddress)) return { address: NetAddress.formatIp(peerAddress), overTls: false, viaTrustedProxy: false }
  let client = peerAddress
  const hops = (headers["x-forwarded-for"] ?? "").split(",")
  for (let index = hops.length - 1; index >= 0 && trusted(client); index--) {
    // An entry that is no address ends the walk at the last hop a trusted proxy vouched for.
    const hop = parseAddress(hops[index]!)
    if (hop === undefined) break
    client = hop
  }
  return { address: NetAddress.formatIp(client), overTls: lastValue(headers["x-forwarded-proto"]) === "https", viaTrustedProxy: true }
}

/** The key a per-client limit counts under: the address, an IPv6 address's /64. */
export const throttleKey = (address: string): string => {
  const parsed = parseAddress(address)
  if (parsed === undefined || NetAddress.width(parsed) === 32) return address
  const network = IpNetwork.fromAddress(parsed, 64)
  return Result.isSuccess(network) ? IpNetwork.format(network.success) : address
}

/** Resolves requests' clients with the configured trusted proxies. */
export class ClientAddress extends Context.Service<ClientAddress, {
  readonly trusted: TrustedProxies
  /** The client of a request (see {@link clientOf}). */
  readonly of: (request: HttpServerRequest.HttpServerRequest) => Client
}>()("@paygate/http/ClientAddress") {
  /** Over explicit trusted proxies. */
  static readonly make = (trusted: TrustedProxies) =>
    ClientAddress.of({
      trusted,
      of: (request) => clientOf(trusted, Option.getOrUndefined(request.remoteAddress), request.headers)
    })

  /** From the settings' trusted proxies (unset: none); an entry that does not parse stops the start. */
  static readonly layer = Layer.effect(
    ClientAddress,
    Effect.gen(function*() {
      const text = Option.getOrElse((yield* ServerSettings).trustedProxies, () => "")
      return ClientAddress.make(yield* Result.match(parseTrustedProxies(text), { onSuccess: Effect.succeed, onFailure: Effect.fail }))
    })
  )
}
