/**
 * The domain's `SecretDigest`: SHA-256 of the whole secret as lowercase hex ({@link hashSecret}),
 * the form the credential, session and team stores keep.
 *
 * @module
 */
import { SecretDigest } from "@paygate/domain"
import { Layer } from "effect"
import { hashSecret } from "./ApiKeySecret.ts"

/** `SecretDigest` by {@link hashSecret}. */
export const layer: Layer.Layer<SecretDigest> = Layer.succeed(SecretDigest, SecretDigest.of({ digest: hashSecret }))
