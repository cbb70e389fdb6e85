/* global process, console, URL */
// The first step of `npm start`, `npm test`, `npm run build` and the CLI: an unsupported Node stops here with one line
// naming the command that brings the right one, before the build, in well under a second. Plain JavaScript that any
// Node runs; the supported versions are package.json's `engines.node` (a test checks that src/node-version.ts, which
// the entry points import, says the same).
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/**
 * The supported lines of an `engines.node` range made of `^MAJOR.MINOR.PATCH` (that version or a later one of its
 * major) and `>=MAJOR.MINOR.PATCH` (that version or any later one), joined by `||`.
 */
export function supportedOf(range) {
  return range.split('||').map((part) => {
    const match = /^(\^|>=)\s*(\d+)\.(\d+)\.(\d+)$/.exec(part.trim());
    if (!match) {
      throw new Error(`package.json engines.node should read "^A.B.C || >=D.E.F" and the like, not "${range}"`);
    }
    return {
      major: Number(match[2]),
      minor: Number(match[3]),
      patch: Number(match[4]),
      laterMajors: match[1] === '>=',
    };
  });
}

const describe = (line) =>
  `${line.major}.${line.minor}.${line.patch} or ${line.laterMajors ? 'newer' : `a later ${line.major}`}`;

/** Why this Node.js cannot run the gateway, or null when it can (the same sentence as src/node-version.ts). */
export function nodeVersionProblem(version, supported) {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version);
  const [major, minor, patch] = [Number(match?.[1]), Number(match?.[2]), Number(match?.[3])];
  const accepts = (line) =>
    major === line.major
      ? minor > line.minor || (minor === line.minor && patch >= line.patch)
      : line.laterMajors && major > line.major;
  if (match && supported.some(accepts)) return null;
  const lines = supported.map(describe);
  return (
    `Node.js ${lines.slice(0, -1).join(', ')}${lines.length > 1 ? ', or ' : ''}${lines.at(-1)} is needed; ` +
    `this is ${version}. ` +
    "Run `source scripts/pinned-node.sh` in this shell (it brings the project's Node 24 from the npm registry), then the command again."
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const problem = nodeVersionProblem(process.version, supportedOf(pkg.engines.node));
  if (problem) {
    console.error(problem);
    process.exit(1);
  }
}
