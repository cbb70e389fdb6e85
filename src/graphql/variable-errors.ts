// An envelop plugin for variables that do not fit their types. graphql-js reports them with no error code and
// quotes the values (`Variable "$input" got invalid value { telephonyAuthToken: … }`): here they get the code
// BAD_USER_INPUT, as every other input problem, and no secret sent in the variables survives in any message.
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { scrubSecrets, secretValues } from '../security/redact.js';

// graphql-js stops after 50 variable errors with one more error of its own, also without a code.
const isVariableError = (error: GraphQLError) =>
  error.path === undefined &&
  (error.message.startsWith('Variable "$') || error.message.startsWith('Too many errors processing variables'));

/** graphql-js quotes the whole offending value: a 49 KB string makes a 49 KB message. Long ones are cut here. */
const MAX_MESSAGE_LENGTH = 500;
const shortened = (message: string) =>
  message.length <= MAX_MESSAGE_LENGTH ? message : `${message.slice(0, MAX_MESSAGE_LENGTH - 1)}…`;

export function variableErrors(): Plugin {
  return {
    onExecute({ args }) {
      const secrets = secretValues(args.variableValues ?? {});
      return {
        onExecuteDone({ result, setResult }) {
          if (!('errors' in result) || !result.errors?.length) return;
          setResult({
            ...result,
            errors: result.errors.map((error) => {
              const variableError = isVariableError(error);
              const scrubbed = scrubSecrets(error.message, secrets);
              const message = variableError ? shortened(scrubbed) : scrubbed;
              const code = variableError && !error.extensions?.code ? { code: 'BAD_USER_INPUT' } : {};
              if (message === error.message && !('code' in code)) return error;
              return new GraphQLError(message, {
                nodes: error.nodes,
                source: error.source,
                positions: error.positions,
                path: error.path,
                originalError: error.originalError,
                extensions: { ...error.extensions, ...code },
              });
            }),
          });
        },
      };
    },
  };
}
