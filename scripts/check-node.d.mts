export interface SupportedLine {
  major: number;
  minor: number;
  patch: number;
  laterMajors: boolean;
}
export declare function supportedOf(range: string): SupportedLine[];
export declare function nodeVersionProblem(version: string, supported: SupportedLine[]): string | null;
