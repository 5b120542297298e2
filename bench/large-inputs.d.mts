/** Types of bench/large-inputs.mjs, for the tests that use its generators. */
export declare function crdBundle(options?: { bytes?: number; group?: string }): string;
export declare function writeCrdBundle(dir: string, options?: { bytes?: number; group?: string }): string;
export declare function writeInstall(dir: string, options?: { group?: string }): number;
