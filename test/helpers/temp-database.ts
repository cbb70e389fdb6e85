// A SQLite file for a test that needs a database on disk (several instances on one database, a child process), removed
// with its -wal and -shm files when the test has finished (after its afterEach hooks have closed the apps).
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

export function tempSqliteFile(prefix: string): string {
  const file = join(tmpdir(), `${prefix}-${randomBytes(6).toString('hex')}.db`);
  onTestFinished(() => {
    for (const path of [file, `${file}-wal`, `${file}-shm`]) rmSync(path, { force: true });
  });
  return file;
}
