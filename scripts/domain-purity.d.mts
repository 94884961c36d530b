/** Violations in one file's source text. */
export declare const findViolations: (file: string, source: string) => Array<string>
/** Violations across the domain package's sources. */
export declare const checkDomain: (root: string) => Array<string>
