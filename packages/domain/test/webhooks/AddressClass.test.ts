import { describe, expect, it } from "vitest"
import { classifyAddress, isBlockedAddress, isLocalHostName, parseIpv4, parseIpv6 } from "../../src/webhooks/AddressClass.ts"

describe("parseIpv4", () => {
  it("reads every inet_aton form", () => {
    const loopback = 0x7f000001
    for (const form of ["127.0.0.1", "2130706433", "0x7f000001", "0X7F000001", "0177.0.0.1", "0x7f.0.0.1", "127.1", "127.0.1", "0177.1", "127.0.0.1."]) {
      expect(parseIpv4(form), form).toBe(loopback)
    }
    expect(parseIpv4("0")).toBe(0)
    expect(parseIpv4("255.255.255.255")).toBe(0xffffffff)
  })

  it("refuses what is not an IPv4 address", () => {
    for (const text of ["", "example.com", "1.2.3.4.5", "256.0.0.1", "1.2.3.256", "4294967296", "08.0.0.1", "1..2", "0x1g", "1.2.3.4x"]) {
      expect(parseIpv4(text), text).toBeUndefined()
    }
  })
})

describe("parseIpv6", () => {
  it("reads compressed, bracketed, zoned and IPv4-embedding forms", () => {
    expect(parseIpv6("::1")).toEqual([0, 0, 0, 0, 0, 0, 0, 1])
    expect(parseIpv6("[::1]")).toEqual([0, 0, 0, 0, 0, 0, 0, 1])
    expect(parseIpv6("::")).toEqual([0, 0, 0, 0, 0, 0, 0, 0])
    expect(parseIpv6("fe80::1%eth0")).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1])
    expect(parseIpv6("::ffff:127.0.0.1")).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1])
    expect(parseIpv6("::ffff:7f00:1")).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1])
    expect(parseIpv6("2001:db8:0:0:0:0:2:1")).toEqual([0x2001, 0xdb8, 0, 0, 0, 0, 2, 1])
    expect(parseIpv6("1:2:3:4:5:6:1.2.3.4")).toEqual([1, 2, 3, 4, 5, 6, 0x102, 0x304])
  })

  it("refuses malformed addresses", () => {
    for (const text of ["1::2::3", "12345::", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9", "::ffff:300.0.0.1", "example.com", "127.0.0.1", ":::"]) {
      expect(parseIpv6(text), text).toBeUndefined()
    }
  })
})

describe("classifyAddress", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.1.2", "loopback"],
    ["2130706433", "loopback"],
    ["0x7f000001", "loopback"],
    ["0177.0.0.1", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.5.4", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "metadata"],
    ["169.254.1.1", "link-local"],
    ["100.64.0.1", "cgnat"],
    ["100.127.255.255", "cgnat"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "reserved"],
    ["192.0.2.1", "reserved"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["::", "unspecified"],
    ["::ffff:127.0.0.1", "loopback"],
    ["[::ffff:127.0.0.1]", "loopback"],
    ["[::ffff:7f00:1]", "loopback"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:169.254.169.254", "metadata"],
    ["::127.0.0.1", "loopback"],
    ["64:ff9b::7f00:1", "loopback"],
    ["2002:7f00:1::", "loopback"],
    ["fc00::1", "unique-local"],
    ["fd12:3456::1", "unique-local"],
    ["fd00:ec2::254", "unique-local"],
    ["fe80::1", "link-local"],
    ["fe80::1%25eth0", "link-local"],
    ["ff02::1", "multicast"],
    ["2001:db8::1", "reserved"],
    ["8.8.8.8", "public"],
    ["172.32.0.1", "public"],
    ["100.128.0.1", "public"],
    ["93.184.216.34", "public"],
    ["2606:4700::1111", "public"],
    ["::ffff:8.8.8.8", "public"]
  ])("%s is %s", (address, expected) => {
    expect(classifyAddress(address)).toBe(expected)
    expect(isBlockedAddress(address)).toBe(expected !== "public")
  })

  it("is undefined for host names, which are blocked until resolved", () => {
    expect(classifyAddress("example.com")).toBeUndefined()
    expect(isBlockedAddress("example.com")).toBe(true)
  })

  it("knows the names of the local host", () => {
    expect(isLocalHostName("localhost")).toBe(true)
    expect(isLocalHostName("LOCALHOST.")).toBe(true)
    expect(isLocalHostName("api.localhost")).toBe(true)
    expect(isLocalHostName("localhost.example.com")).toBe(false)
  })
})
