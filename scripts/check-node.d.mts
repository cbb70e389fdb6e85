export declare function minimumOf(range: string): { major: number; minor: number };
export declare function nodeVersionProblem(version: string, minimum: { major: number; minor: number }): string | null;
