/** Types of scripts/build-ui.mjs (imported by the tests and the package build). */
export declare const UI_DIST: string;
export declare function buildUi(options?: { outdir?: string; force?: boolean }): Promise<{ outdir: string; built: boolean }>;
