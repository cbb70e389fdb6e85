// Loaded with `--import` into a server started with `--expose-gc` (test/node/gc-pressure.test.ts): SIGUSR2 runs full
// garbage collections, lets the finalisers they scheduled run, and prints `gc done` on stdout.
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('gc-on-signal needs node --expose-gc');

process.on('SIGUSR2', () => {
  gc();
  // Native objects (database statements among them) are finalised in a task after the collection: collect again once
  // those have run, then say so.
  setImmediate(() => {
    gc();
    setImmediate(() => process.stdout.write('gc done\n'));
  });
});
