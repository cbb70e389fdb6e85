// An envelop plugin for argument values that do not fit their types (docs/graphql.md, "Errors"). graphql-js reports
// them one error each, with no code and quoting the values: a bad variable at execution (`Variable "$input" got
// invalid value …`), the same mistake written inline at validation (GRAPHQL_VALIDATION_FAILED). Here both spellings
// answer alike: one BAD_USER_INPUT error whose `issues` name every problem (src/graphql/server/input-issues.ts), a request
// error in GraphQL over HTTP's terms, and no secret sent in the variables survives in any message.
import {
  type ArgumentNode,
  type ASTNode,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  GraphQLError,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  getOperationAST,
  Kind,
  isNonNullType,
  TypeInfo,
  typeFromAST,
  ValidationContext,
  type ValueNode,
  valueFromASTUntyped,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { InputIssue } from '../../core/errors.js';
import { SECRET_FIELD_NAMES } from '../../domain/secrets.schema.js';
import { secretScrubber, secretValues } from '../../security/redact.js';
import { inputError, inputIssues, MAX_INPUT_ISSUES, MAX_MESSAGE_LENGTH, shortened } from './input-issues.js';
import { applyNonNullVariableDefaults } from './variable-defaults.js';

// graphql-js stops after 50 variable errors with one more error of its own, also without a code.
const isVariableError = (error: GraphQLError) =>
  error.path === undefined &&
  (error.message.startsWith('Variable "$') || error.message.startsWith('Too many errors processing variables'));

/** `error` with another message (and more extensions), the rest as graphql-js made it. */
const rewritten = (error: GraphQLError, message: string, extensions: Record<string, unknown> = {}) =>
  new GraphQLError(message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: { ...error.extensions, ...extensions },
  });

/** The issues of the operation's variables, each under its variable's name. */
function variableIssues(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  values: Readonly<Record<string, unknown>>,
): InputIssue[] {
  const issues: InputIssue[] = [];
  for (const definition of getOperationAST(document, operationName)?.variableDefinitions ?? []) {
    const type = typeFromAST(schema, definition.type) as GraphQLInputType | undefined;
    if (!type) continue;
    const name = definition.variable.name.value;
    // Own properties only: a variable named `constructor` or `toString` is not the object's prototype's.
    const value = Object.hasOwn(values, name) ? values[name] : undefined;
    issues.push(...inputIssues(value, type, [name], definition.defaultValue !== undefined));
    if (issues.length > MAX_INPUT_ISSUES) break;
  }
  return issues;
}

const VALUE_KINDS: ReadonlySet<string> = new Set([
  Kind.INT,
  Kind.FLOAT,
  Kind.STRING,
  Kind.BOOLEAN,
  Kind.NULL,
  Kind.ENUM,
  Kind.LIST,
  Kind.OBJECT,
  Kind.OBJECT_FIELD,
]);
const MISSING_ARGUMENT =
  /^(?:Field|Directive) "[^"]+" argument "([^"]+)" of type "[^"]+" is required, but it was not provided\.$/;

/** A validation error about a value written inline (ValuesOfCorrectTypeRule, ProvidedRequiredArgumentsRule). */
const isValueError = (error: GraphQLError) => {
  const node = error.nodes?.[0];
  return node !== undefined && (VALUE_KINDS.has(node.kind) || MISSING_ARGUMENT.test(error.message));
};

/** The path of every value node below an argument's value (an object field's node names its field). */
function valuePaths(value: ValueNode, path: Array<string | number>, into: Map<ASTNode, Array<string | number>>): void {
  into.set(value, path);
  if (value.kind === Kind.LIST) value.values.forEach((item, index) => valuePaths(item, [...path, index], into));
  if (value.kind === Kind.OBJECT) {
    for (const field of value.fields) {
      into.set(field, [...path, field.name.value]);
      valuePaths(field.value, [...path, field.name.value], into);
    }
  }
}

/** Marks the value that stands for a variable inside an inline value (see literalIssues). */
const PLACEHOLDER = Symbol('variable');

/**
 * The issues of the inline values the validation errors are about, each under its argument's name, and which errors
 * they stand for (an error elsewhere, in a variable's default value for one, is left as it is).
 */
function literalIssues(
  schema: GraphQLSchema,
  document: DocumentNode,
  errors: readonly GraphQLError[],
): { issues: InputIssue[]; explained: Set<GraphQLError> } {
  const explainedErrors = new Set<GraphQLError>();
  const byNode = new Map<ASTNode, GraphQLError[]>();
  for (const error of errors) {
    const node = error.nodes?.[0] as ASTNode;
    byNode.set(node, [...(byNode.get(node) ?? []), error]);
  }
  const issues: InputIssue[] = [];
  const typeInfo = new TypeInfo(schema);
  const argument = (node: ArgumentNode) => {
    const definition = typeInfo.getArgument();
    const paths = new Map<ASTNode, Array<string | number>>();
    valuePaths(node.value, [node.name.value], paths);
    const wrong = [...paths.keys()].flatMap((value) => (byNode.get(value) ?? []).map((error) => ({ value, error })));
    if (!definition || wrong.length === 0) return;
    // A variable inside the value stands as a placeholder: the value around it is checked, the variable is not.
    const placeholders = new Map<string, object>();
    for (const value of paths.keys())
      if (value.kind === Kind.VARIABLE) placeholders.set(value.name.value, { [PLACEHOLDER]: value.name.value });
    const isPlaceholder = (value: unknown) => typeof value === 'object' && value !== null && PLACEHOLDER in value;
    const found = inputIssues(
      valueFromASTUntyped(node.value, Object.fromEntries(placeholders)),
      definition.type,
      [node.name.value],
      false,
      isPlaceholder,
    );
    // What the coercion did not explain (a string where an enum value must be written): graphql-js's own words, at
    // the value's path.
    for (const { value, error } of wrong) {
      const path = paths.get(value) ?? [];
      const explained = found.some((issue) => path.every((segment, index) => issue.path[index] === segment));
      if (!explained) found.push({ path, type: 'value_error', message: error.message });
      explainedErrors.add(error);
    }
    issues.push(...found.map((issue) => ({ ...issue, message: shortened(issue.message) })));
  };
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field: (node) => missingArguments(node),
      Directive: (node) => missingArguments(node),
      Argument: argument,
    }),
  );
  function missingArguments(node: ASTNode) {
    for (const error of byNode.get(node) ?? []) {
      const name = MISSING_ARGUMENT.exec(error.message)?.[1];
      if (!name) continue;
      issues.push({ path: [name], type: 'missing', message: 'Field required' });
      explainedErrors.add(error);
    }
  }
  return { issues, explained: explainedErrors };
}

/** The result of an operation, its variable errors made one BAD_USER_INPUT and every message scrubbed of secrets. */
function withInputIssues(args: ExecutionArgs, result: ExecutionResult): ExecutionResult | undefined {
  if (!result.errors?.length) return undefined;
  const errors = result.errors;
  const scrub = secretScrubber(secretValues(args.variableValues ?? {}, SECRET_FIELD_NAMES));
  const others = errors.filter((error) => !isVariableError(error));
  const issues =
    others.length < errors.length
      ? variableIssues(args.schema, args.document, args.operationName, args.variableValues ?? {})
      : [];
  const scrubbedIssues = issues.map((issue) => ({
    ...issue,
    message: shortened(scrub(issue.message)),
  }));
  const kept = (issues.length > 0 ? others : errors).map((error) => {
    const variableError = isVariableError(error);
    const scrubbed = scrub(error.message);
    const message = variableError ? shortened(scrubbed) : scrubbed;
    const code = variableError && !error.extensions?.code ? { code: 'BAD_USER_INPUT' } : {};
    return message === error.message && !('code' in code) ? error : rewritten(error, message, code);
  });
  if (issues.length === 0 && kept.every((error, index) => error === errors[index])) return undefined;
  return { ...result, errors: issues.length > 0 ? [inputError(scrubbedIssues), ...kept] : kept };
}

/** A validation error as graphql-js made it, its message cut (a default value of 300 KB is quoted whole). */
const cut = (error: GraphQLError): GraphQLError =>
  error.message.length <= MAX_MESSAGE_LENGTH ? error : rewritten(error, shortened(error.message));

/**
 * An explicit null in a nullable variable used where a non-null value is required, which the spec allows when the
 * variable or the argument has a default (`query ($l: Int = 50) { upcomingMeetings(limit: $l) }`, or `($tz: String)`
 * given to `callStats(timeZone: String! = "UTC")`) with `{"l": null}`: it lets the document through and leaves the
 * null to the executor, where graphql-js reports it without a code (or graphql-jit passes it on). Answered here,
 * before anything runs, as the same BAD_USER_INPUT. Only when such a null was sent is the document walked.
 */
function nullsWhereRequired(args: ExecutionArgs, operation: OperationDefinitionNode | null | undefined): InputIssue[] {
  const values = args.variableValues ?? {};
  const suspects = (operation?.variableDefinitions ?? []).filter(
    (definition) =>
      definition.type.kind !== Kind.NON_NULL_TYPE &&
      Object.hasOwn(values, definition.variable.name.value) &&
      values[definition.variable.name.value] === null,
  );
  if (!operation || suspects.length === 0) return [];
  const names = new Set(suspects.map((definition) => definition.variable.name.value));
  const context = new ValidationContext(args.schema, args.document, new TypeInfo(args.schema), () => undefined);
  const issues: InputIssue[] = [];
  for (const { node, type } of context.getRecursiveVariableUsages(operation)) {
    const name = node.name.value;
    if (!names.has(name) || !type || !isNonNullType(type)) continue;
    names.delete(name);
    issues.push(...inputIssues(null, type, [name]));
  }
  return issues;
}

/**
 * Before an operation runs: a null where a value is required stops it with its BAD_USER_INPUT. Otherwise, what to do
 * with its result: variable errors made one BAD_USER_INPUT (an async iterable of results is left alone).
 */
function checkedBeforehand(
  args: ExecutionArgs,
  stop: (result: ExecutionResult) => void,
):
  | ((result: ExecutionResult | AsyncIterable<unknown>, setResult: (result: ExecutionResult) => void) => void)
  | undefined {
  // The operation is found once for both (this runs before every execution).
  const operation = getOperationAST(args.document, args.operationName);
  applyNonNullVariableDefaults(args, operation);
  const nulls = nullsWhereRequired(args, operation);
  if (nulls.length > 0) {
    stop({ errors: [inputError(nulls)] });
    return undefined;
  }
  return (result, setResult) => {
    if (!('errors' in result)) return;
    const changed = withInputIssues(args, result);
    if (changed) setResult(changed);
  };
}

export function inputErrors(): Plugin {
  return {
    onValidate({ params }) {
      return ({ valid, result, setResult }) => {
        if (valid) return;
        const values = result.filter(isValueError);
        const { issues, explained } =
          values.length > 0
            ? literalIssues(params.schema, params.documentAST, values)
            : { issues: [], explained: new Set<GraphQLError>() };
        // What was not made an issue (a variable's default value, say) stays as graphql-js reported it, cut short.
        const others = result.filter((error) => !explained.has(error)).map(cut);
        const answer = issues.length > 0 ? [inputError(issues), ...others] : others;
        if (answer.length !== result.length || answer.some((error, index) => error !== result[index]))
          setResult(answer);
      };
    },
    // Queries and mutations, and subscriptions (SSE, WebSocket), whose variables are coerced the same way.
    onExecute({ args, setResultAndStopExecution }) {
      const adjust = checkedBeforehand(args, setResultAndStopExecution);
      return adjust && { onExecuteDone: ({ result, setResult }) => adjust(result, setResult) };
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const adjust = checkedBeforehand(args, setResultAndStopExecution);
      return adjust && { onSubscribeResult: ({ result, setResult }) => adjust(result, setResult) };
    },
  };
}
