// `npm run bench`'s ablation targets (bench/archive.md, "The floor and the ablation"): our gateway (src/main.ts) with
// the per-request steps named in ABLATE (comma-separated names of src/core/ablation.ts) taken out.
import { ABLATABLE_STEPS, type AblatableStep, ablated } from '../src/core/ablation.js';

for (const step of (process.env.ABLATE ?? '').split(',').filter(Boolean)) {
  if (!(ABLATABLE_STEPS as readonly string[]).includes(step)) throw new Error(`unknown step to ablate: ${step}`);
  ablated.add(step as AblatableStep);
}
await import('../src/main.js');
