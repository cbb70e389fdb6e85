// Every dependency with an install script is decided in package.json's `allowScripts` (npm 11's policy: true runs it,
// false skips it without a warning), and docs/operations.md ("Install scripts") gives the reason for each: a new
// dependency with a script fails here until someone decides and says why.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

it('every package with an install script is allowed or denied, with its reason in docs/operations.md', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { allowScripts: Record<string, boolean> };
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { hasInstallScript?: boolean }>;
  };
  const withScripts = Object.entries(lock.packages)
    .filter(([, entry]) => entry.hasInstallScript)
    .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
  expect(withScripts.length).toBeGreaterThan(0);
  for (const name of withScripts) expect(pkg.allowScripts, name).toHaveProperty([name]);
  const operations = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
  const section = /## Install scripts\n([\s\S]*?)(\n## |$)/.exec(operations)?.[1] ?? '';
  for (const [name, allowed] of Object.entries(pkg.allowScripts)) {
    expect(section, name).toMatch(
      new RegExp(`\\| \`${name.replace(/[/.]/g, '\\$&')}\` \\| ${allowed ? 'runs' : 'skipped'} \\|`),
    );
  }
});
