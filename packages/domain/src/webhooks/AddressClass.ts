/**
 * SSRF address classification (API rules §6): whether an IP address a webhook URL names or
 * resolves to is one the service must not call. Pure: the caller resolves host names (at
 * registration and again at delivery, on the address actually connected to).
 *
 * Parsing is as lenient as the resolvers and URL parsers an attacker could aim at: IPv4 in the
 * `inet_aton` forms (`2130706433`, `0x7f000001`, `0177.0.0.1`, `127.1`), IPv6 with `::`, zone
 * ids, brackets and embedded IPv4 (`::ffff:127.0.0.1`, `::ffff:7f00:1`).
 *
 * @module
 */

/** What kind of address an IP is; everything but `public` is refused unless explicitly allowed. */
export type AddressClass =
  | "public"
  | "unspecified"
  | "loopback"
  | "private"
  | "link-local"
  | "metadata"
  | "cgnat"
  | "unique-local"
  | "multicast"
  | "reserved"

/** A parsed IP address. */
export type IpAddress =
  | { readonly version: 4; readonly value: number }
  | { readonly version: 6; readonly groups: ReadonlyArray<number> }

// One inet_aton part: decimal, 0x-hex or 0-octal; undefined when it is not a number.
const parsePart = (part: string): number | undefined => {
  if (/^0[xX][0-9a-fA-F]*$/.test(part)) return part.length === 2 ? 0 : parseInt(part.slice(2), 16)
  if (/^0[0-7]+$/.test(part)) return parseInt(part.slice(1), 8)
  if (/^(0|[1-9][0-9]*)$/.test(part)) return Number(part)
  return undefined
}

/**
 * An IPv4 address in any `inet_aton` form: 1 to 4 parts separated by dots, each decimal, hex
 * (`0x`) or octal (leading `0`); the last part fills the remaining bytes. Answers the address as
 * an unsigned 32-bit number, or `undefined` when the text is not such an address.
 */
export const parseIpv4 = (text: string): number | undefined => {
  const trimmed = text.endsWith(".") ? text.slice(0, -1) : text
  const parts = trimmed.split(".")
  if (parts.length < 1 || parts.length > 4) return undefined
  const values: Array<number> = []
  for (const part of parts) {
    if (part.length === 0 || part.length > 34) return undefined
    const value = parsePart(part)
    if (value === undefined || !Number.isFinite(value)) return undefined
    values.push(value)
  }
  const last = values.pop()!
  let result = 0
  for (const [index, value] of values.entries()) {
    if (value > 255) return undefined
    result += value * 2 ** (8 * (3 - index))
  }
  if (last >= 2 ** (8 * (4 - values.length))) return undefined
  return result + last
}

/** Eight 16-bit groups of an IPv6 address (brackets and a zone id allowed), or `undefined`. */
export const parseIpv6 = (text: string): ReadonlyArray<number> | undefined => {
  let body = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text
  const zone = body.indexOf("%")
  if (zone >= 0) body = body.slice(0, zone)
  if (!body.includes(":") || !/^[0-9a-fA-F:.]+$/.test(body)) return undefined
  // An embedded IPv4 address (strict dotted quad) in the last position becomes two hex groups.
  const lastColon = body.lastIndexOf(":")
  const lastPart = body.slice(lastColon + 1)
  if (lastPart.includes(".")) {
    if (!/^[0-9]{1,3}(\.[0-9]{1,3}){3}$/.test(lastPart)) return undefined
    const bytes = lastPart.split(".").map(Number)
    if (bytes.some((b) => b > 255)) return undefined
    const hex = (hi: number, lo: number) => (hi * 256 + lo).toString(16)
    body = `${body.slice(0, lastColon + 1)}${hex(bytes[0]!, bytes[1]!)}:${hex(bytes[2]!, bytes[3]!)}`
  }
  const halves = body.split("::")
  if (halves.length > 2) return undefined
  const parse = (half: string) =>
    half === "" ? [] : half.split(":").map((g) => (/^[0-9a-fA-F]{1,4}$/.test(g) ? parseInt(g, 16) : Number.NaN))
  const left = parse(halves[0]!)
  const right = halves.length === 2 ? parse(halves[1]!) : []
  if ([...left, ...right].some(Number.isNaN)) return undefined
  const explicit = left.length + right.length
  if (halves.length === 1) return explicit === 8 ? left : undefined
  if (explicit > 7) return undefined
  return [...left, ...new Array<number>(8 - explicit).fill(0), ...right]
}

/** An IP address in any form {@link parseIpv4} or {@link parseIpv6} accepts, else `undefined`. */
export const parseIpAddress = (text: string): IpAddress | undefined => {
  const v4 = parseIpv4(text)
  if (v4 !== undefined) return { version: 4, value: v4 }
  const v6 = parseIpv6(text)
  return v6 === undefined ? undefined : { version: 6, groups: v6 }
}

const inV4 = (value: number, base: string, bits: number) => {
  const start = parseIpv4(base)!
  const size = 2 ** (32 - bits)
  return value >= start && value < start + size
}

/** The class of an IPv4 address (an unsigned 32-bit number). */
export const classifyIpv4 = (value: number): AddressClass => {
  if (value === parseIpv4("169.254.169.254")) return "metadata"
  if (value === 0) return "unspecified"
  if (inV4(value, "0.0.0.0", 8)) return "unspecified" // "this network": reaches the local host
  if (inV4(value, "127.0.0.0", 8)) return "loopback"
  if (inV4(value, "10.0.0.0", 8) || inV4(value, "172.16.0.0", 12) || inV4(value, "192.168.0.0", 16)) return "private"
  if (inV4(value, "169.254.0.0", 16)) return "link-local"
  if (inV4(value, "100.64.0.0", 10)) return "cgnat"
  if (inV4(value, "224.0.0.0", 4)) return "multicast"
  if (
    inV4(value, "192.0.0.0", 24) || inV4(value, "192.0.2.0", 24) || inV4(value, "198.18.0.0", 15) ||
    inV4(value, "198.51.100.0", 24) || inV4(value, "203.0.113.0", 24) || inV4(value, "240.0.0.0", 4)
  ) return "reserved"
  return "public"
}

// The IPv4 address in the low 32 bits of an IPv6 address.
const low32 = (g: ReadonlyArray<number>) => g[6]! * 65536 + g[7]!

/** The class of an IPv6 address (eight 16-bit groups); embedded IPv4 addresses are classified as IPv4. */
export const classifyIpv6 = (g: ReadonlyArray<number>): AddressClass => {
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0)
  if (zeroUpTo(8)) return "unspecified"
  if (zeroUpTo(7) && g[7] === 1) return "loopback"
  // IPv4-mapped ::ffff:a.b.c.d, IPv4-translated ::ffff:0:a.b.c.d, IPv4-compatible ::a.b.c.d.
  if (zeroUpTo(5) && g[5] === 0xffff) return classifyIpv4(low32(g))
  if (zeroUpTo(4) && g[4] === 0xffff && g[5] === 0) return classifyIpv4(low32(g))
  if (zeroUpTo(6)) return classifyIpv4(low32(g))
  // NAT64 (64:ff9b::/96 and the local-use 64:ff9b:1::/48) reaches the embedded IPv4 address.
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0) return classifyIpv4(low32(g))
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return "reserved"
  // 6to4 (2002::/16) embeds an IPv4 address in bits 16–47.
  if (g[0] === 0x2002) {
    const embedded = classifyIpv4(g[1]! * 65536 + g[2]!)
    return embedded === "public" ? "public" : embedded
  }
  if ((g[0]! & 0xfe00) === 0xfc00) return "unique-local"
  if ((g[0]! & 0xffc0) === 0xfe80) return "link-local"
  if ((g[0]! & 0xffc0) === 0xfec0) return "private" // site-local (deprecated)
  if ((g[0]! & 0xff00) === 0xff00) return "multicast"
  if (g[0] === 0x2001 && g[1] === 0xdb8) return "reserved" // documentation
  if (g[0] === 0x0100 && g[1] === 0 && g[2] === 0 && g[3] === 0) return "reserved" // discard-only
  if (g[0] === 0x2001 && g[1]! < 0x200) return "reserved" // IETF protocol assignments (Teredo, ORCHID...)
  return "public"
}

/** The class of an address; text that is not an IP address is `undefined`. */
export const classifyAddress = (text: string): AddressClass | undefined => {
  const ip = parseIpAddress(text)
  if (ip === undefined) return undefined
  return ip.version === 4 ? classifyIpv4(ip.value) : classifyIpv6(ip.groups)
}

/** Whether an address must not be called without an explicit allowance; text that is not an IP is blocked. */
export const isBlockedAddress = (text: string): boolean => classifyAddress(text) !== "public"

/**
 * Host names that name the local machine whatever DNS says (RFC 6761 `localhost` and its
 * subdomains), so they are refused without a lookup.
 */
export const isLocalHostName = (host: string): boolean => {
  const name = host.toLowerCase().replace(/\.$/, "")
  return name === "localhost" || name.endsWith(".localhost") || name === "localhost.localdomain"
}
