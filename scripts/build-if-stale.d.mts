export declare const STAMP: string;
export declare const BUILD_INPUTS: string[];
export declare function isStale(root: string, inputs?: string[], stamp?: string): boolean;
export declare function build(root: string): void;
export declare function missingOutputs(root: string, folders?: string[]): string[];
