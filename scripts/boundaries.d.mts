/** Which workspaces each package's sources may import. */
export declare const allowedDependencies: Record<string, ReadonlyArray<string>>
/** Violations of one import of `file`. */
export declare const checkImport: (root: string, file: string, specifier: string) => Array<string>
/** Every violation of the rule under `root`. */
export declare const checkBoundaries: (root: string) => Array<string>
