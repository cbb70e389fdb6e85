// The compiled plans' plugin (docs/graphql-internals.md "Compiled plans"): a whole query whose document a plan covers
// (./compiled-plan.ts) runs on that plan in place of graphql-jit's compiled query, every other plugin around it as
// before (authentication, read-only tokens, cost, work budget, the response cache, metrics, traces, error masking).
// A plan is compiled the first time a parsed document runs an operation, and kept as long as that document (weakly,
// as graphql-jit's compiled queries are: yoga's parse cache and the lane bound documents in bytes).
import { makeExecute } from '@envelop/core';
import type { DocumentNode, ExecutionArgs, ExecutionResult, GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { timedWork } from '../../core/request-context.js';
import { withSerialisation } from './compiled-queries.js';
import { type CompiledPlan, compilePlan, PlanDeclined } from './compiled-plan.js';

export interface PlanStats {
  /** Operations compiled to a plan, and operations a plan does not cover (since the process started). */
  compiled: number;
  uncovered: number;
  /** Requests a plan answered, and requests it handed to the executor it replaces. */
  served: number;
  declined: number;
}

/** Counted over every server of the process (tests and /metrics read them). */
export const planStats: PlanStats = { compiled: 0, uncovered: 0, served: 0, declined: 0 };

interface Kept {
  schema: GraphQLSchema;
  plan: CompiledPlan | null;
}

const stringify = (result: ExecutionResult) => JSON.stringify(result);

export function compiledPlans(options: { enableIf: (args: ExecutionArgs) => boolean }): Plugin {
  const byDocument = new WeakMap<DocumentNode, Map<string, Kept>>();

  const keptFor = (args: ExecutionArgs): Kept => {
    let byName = byDocument.get(args.document);
    if (!byName) byDocument.set(args.document, (byName = new Map()));
    const name = args.operationName ?? '';
    let kept = byName.get(name);
    if (!kept || kept.schema !== args.schema) {
      // Compiling is the first request's own work (bounded by the document's size, itself bounded).
      const plan = timedWork(() => compilePlan(args.schema, args.document, args.operationName));
      kept = { schema: args.schema, plan: 'run' in plan ? plan : null };
      if (kept.plan) planStats.compiled += 1;
      else planStats.uncovered += 1;
      byName.set(name, kept);
    }
    return kept;
  };

  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      if (!options.enableIf(args)) return;
      const kept = keptFor(args);
      const plan = kept.plan;
      if (!plan) return;
      const executor = executeFn;
      setExecuteFn(
        makeExecute(async (executeArgs: ExecutionArgs) => {
          const result = await plan.run(executeArgs);
          if (result instanceof PlanDeclined) {
            planStats.declined += 1;
            if (result.dropPlan) kept.plan = null;
            return executor(executeArgs) as Promise<ExecutionResult>;
          }
          planStats.served += 1;
          return withSerialisation(result, executeArgs, stringify);
        }),
      );
    },
  };
}
