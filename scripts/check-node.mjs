/* global process, console, URL */
// `npm start`'s first step (`prestart`): an unsupported Node stops here with one line, before the build, in well under
// a second. Plain JavaScript that any Node runs; the supported range is package.json's `engines.node` (a test checks
// that src/node-version.ts, which the entry points import, says the same).
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** The oldest supported version in an `engines.node` range of the form `>=MAJOR.MINOR.PATCH`. */
export function minimumOf(range) {
  const match = /^>=\s*(\d+)\.(\d+)\.\d+$/.exec(range.trim());
  if (!match) throw new Error(`package.json engines.node should read ">=MAJOR.MINOR.PATCH", not "${range}"`);
  return { major: Number(match[1]), minor: Number(match[2]) };
}

/** Why this Node.js cannot run the gateway, or null when it can (the same sentence as src/node-version.ts). */
export function nodeVersionProblem(version, minimum) {
  const match = /^v?(\d+)\.(\d+)\./.exec(version);
  const major = Number(match?.[1]);
  const minor = Number(match?.[2]);
  if (match && (major > minimum.major || (major === minimum.major && minor >= minimum.minor))) return null;
  return (
    `Node.js ${minimum.major}.${minimum.minor} or newer (22 or 24 LTS) is needed; this is ${version}. ` +
    "Run `source scripts/pinned-node.sh` in this shell (it brings the project's Node 24 from the npm registry), then the command again."
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const problem = nodeVersionProblem(process.version, minimumOf(pkg.engines.node));
  if (problem) {
    console.error(problem);
    process.exit(1);
  }
}
