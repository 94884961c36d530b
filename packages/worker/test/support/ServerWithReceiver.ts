/**
 * The set-up most in-process worker suites share: a test server on the suite's database, a local
 * receiver, a partner and its sandbox merchant; made before the suite's tests, closed after.
 */
import { afterAll, beforeAll } from "vitest"
import { type TestDatabase, type TestPartner, type TestServer, useTestServer } from "../../../../test/support/TestServer.ts"
import { type Receiver, startReceiver } from "../../../../test/support/Receiver.ts"

export interface ServerWithReceiver {
  readonly server: TestServer
  readonly receiver: Receiver
  readonly partner: TestPartner
  readonly merchantId: string
}

/** Registers the suite's hooks; the answer is filled in once `beforeAll` ran. */
export const serverWithReceiver = (database: TestDatabase): ServerWithReceiver => {
  const server = useTestServer(database)
  const made: { -readonly [K in keyof Omit<ServerWithReceiver, "server">]?: ServerWithReceiver[K] } = {}
  beforeAll(async () => {
    made.receiver = await startReceiver()
    made.partner = await server.partner()
    made.merchantId = await server.merchant(made.partner.sandbox)
  })
  afterAll(async () => {
    await made.receiver?.close()
  })
  return {
    server,
    get receiver() {
      return made.receiver!
    },
    get partner() {
      return made.partner!
    },
    get merchantId() {
      return made.merchantId!
    }
  }
}
