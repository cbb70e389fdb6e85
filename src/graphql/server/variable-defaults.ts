// The default of a non-null variable (`query ($limit: Int! = 50)`), put in place when the variable is not sent: the
// spec's CoerceVariableValues uses it, graphql-js does, but graphql-jit's variable parser does not (it answers
// `Variable "$limit" of required type "Int!" was not provided.`). Done before execution, for either executor.
import { type ExecutionArgs, Kind, type OperationDefinitionNode, typeFromAST, valueFromAST } from 'graphql';

/** `operation`: the one `args` runs (getOperationAST), found by the caller. */
export function applyNonNullVariableDefaults(
  args: ExecutionArgs,
  operation: OperationDefinitionNode | null | undefined,
): void {
  const definitions = operation?.variableDefinitions;
  if (!definitions) return;
  const given = args.variableValues ?? {};
  let values: Record<string, unknown> | undefined;
  for (const definition of definitions) {
    if (definition.type.kind !== Kind.NON_NULL_TYPE || !definition.defaultValue) continue;
    const name = definition.variable.name.value;
    if (Object.hasOwn(given, name)) continue;
    const type = typeFromAST(args.schema, definition.type);
    const value = type ? valueFromAST(definition.defaultValue, type) : undefined;
    if (value === undefined) continue;
    values ??= { ...given };
    values[name] = value;
  }
  if (values) args.variableValues = values;
}
