// An envelop plugin for variables that do not fit their types. graphql-js reports them with no error code and
// quotes the values (`Variable "$input" got invalid value { telephonyAuthToken: … }`): here they get the code
// BAD_USER_INPUT, as every other input problem, and no secret sent in the variables survives in any message.
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { scrubSecrets, secretValues } from '../security/redact.js';

const isVariableError = (error: GraphQLError) => error.path === undefined && error.message.startsWith('Variable "$');

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
              const message = scrubSecrets(error.message, secrets);
              const code = isVariableError(error) && !error.extensions?.code ? { code: 'BAD_USER_INPUT' } : {};
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
