import { exclusiveSequences } from "@paygate/adapters"
import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { connect, type Socket } from "node:net"
import { setTimeout as sleep } from "node:timers/promises"

// A bare PostgreSQL wire-protocol client: just enough to send hand-made message sequences.
const message = (type: string, body: Buffer) => {
  const header = Buffer.alloc(5)
  header.write(type, 0, "latin1")
  header.writeInt32BE(body.length + 4, 1)
  return Buffer.concat([header, body])
}
const cstring = (text: string) => Buffer.from(`${text}\0`, "utf8")
const int16 = (n: number) => Buffer.from([n >> 8, n & 0xff])
const int32 = (n: number) => {
  const b = Buffer.alloc(4)
  b.writeInt32BE(n)
  return b
}
const parse = (query: string) => message("P", Buffer.concat([cstring(""), cstring(query), int16(0)]))
const bind = () => message("B", Buffer.concat([cstring(""), cstring(""), int16(0), int16(0), int16(0)]))
const execute = () => message("E", Buffer.concat([cstring(""), int32(0)]))
const sync = () => message("S", Buffer.alloc(0))

interface RawClient {
  readonly socket: Socket
  /** Backend messages received so far, as [type, body]. */
  readonly received: Array<[string, Buffer]>
  readonly waitFor: (type: string, count?: number) => Promise<void>
}

const open = async (port: number): Promise<RawClient> => {
  const socket = connect({ host: "127.0.0.1", port })
  const received: Array<[string, Buffer]> = []
  let pending = Buffer.alloc(0)
  socket.on("data", (chunk) => {
    pending = Buffer.concat([pending, chunk])
    while (pending.length >= 5 && pending.length >= 1 + pending.readInt32BE(1)) {
      const length = pending.readInt32BE(1)
      received.push([pending.toString("latin1", 0, 1), pending.subarray(5, 1 + length)])
      pending = pending.subarray(1 + length)
    }
  })
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject))
  const waitFor = async (type: string, count = 1) => {
    for (let i = 0; i < 500 && received.filter(([t]) => t === type).length < count; i++) await sleep(10)
    expect(received.filter(([t]) => t === type).length).toBeGreaterThanOrEqual(count)
  }
  const startup = Buffer.concat([int32(196608), cstring("user"), cstring("postgres"), cstring("database"), cstring("postgres"), Buffer.from([0])])
  socket.write(Buffer.concat([int32(startup.length + 4), startup]))
  await waitFor("Z")
  return { socket, received, waitFor }
}

// The text of the first column of every DataRow received.
const values = (client: RawClient) =>
  client.received.filter(([t]) => t === "D").map(([, body]) => body.toString("utf8", 6, 6 + body.readInt32BE(2)))

describe("exclusiveSequences", () => {
  let db: PGlite
  let server: PGLiteSocketServer
  let port: number

  beforeAll(async () => {
    db = await PGlite.create()
    server = new PGLiteSocketServer({ db: exclusiveSequences(db), host: "127.0.0.1", port: 0, maxConnections: 4 })
    await server.start()
    port = Number(server.getServerConn().split(":").at(-1))
  }, 60_000)

  afterAll(async () => {
    await server.stop()
    await db.close()
  })

  it("keeps another client out between a client's Bind and its Sync", async () => {
    const a = await open(port)
    const b = await open(port)
    // A binds the unnamed portal and pauses before executing it.
    a.socket.write(Buffer.concat([parse("SELECT 'from a'::text"), bind()]))
    await a.waitFor("2") // BindComplete
    // B sends a whole sequence on the same unnamed statement and portal: it must wait for A.
    b.socket.write(Buffer.concat([parse("SELECT 'from b'::text"), bind(), execute(), sync()]))
    await sleep(200)
    expect(values(b)).toEqual([])
    a.socket.write(Buffer.concat([execute(), sync()]))
    await a.waitFor("Z", 2)
    await b.waitFor("Z", 2)
    expect(a.received.filter(([t]) => t === "E")).toEqual([])
    expect(values(a)).toEqual(["from a"])
    expect(values(b)).toEqual(["from b"])
    a.socket.destroy()
    b.socket.destroy()
  })

  it("frees the session when a client leaves in the middle of a sequence", async () => {
    const a = await open(port)
    a.socket.write(Buffer.concat([parse("SELECT 1"), bind()]))
    await a.waitFor("2")
    a.socket.destroy()
    const b = await open(port)
    b.socket.write(Buffer.concat([parse("SELECT 'still served'::text"), bind(), execute(), sync()]))
    await b.waitFor("Z", 2)
    expect(values(b)).toEqual(["still served"])
    b.socket.destroy()
  })
})
