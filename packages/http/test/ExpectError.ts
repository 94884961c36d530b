// Moved to the shared harness (the cross-package chain suites use it too).
export { expectError } from "../../../test/support/ExpectError.ts"
