import { Schema } from "effect"
import { publishedVersions } from "../versioning/ApiVersion.ts"

/** A published API version (API rules §3) as a schema. */
export const ApiVersionLiteral = Schema.Literals(publishedVersions)
