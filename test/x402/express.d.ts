/** The part of express 5 the x402 tests use (the package ships no types, and `@types/express` is not installed). */
declare module "express" {
  import type { IncomingMessage, Server, ServerResponse } from "node:http"

  export interface Response extends ServerResponse {
    json: (body: unknown) => void
  }
  export interface Express {
    use: (handler: unknown) => void
    get: (path: string, handler: (request: IncomingMessage, response: Response) => void) => void
    listen: (port: number, host: string) => Server
  }
  export default function express(): Express
}
