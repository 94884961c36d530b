/** One line per tangle of `files` that import each other, naming one circle in it in import order. */
export declare const importCircles: (root: string, files: ReadonlyArray<string>) => Array<string>
/** The circles among the repository's code under `root`. */
export declare const circlesIn: (root: string) => Array<string>
