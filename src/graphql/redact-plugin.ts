// An envelop plugin: errors of an operation never quote a secret it was sent in its variables (graphql-js puts
// variable values into coercion messages, e.g. `Variable "$input" got invalid value { telephonyAuthToken: … }`).
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { scrubSecrets, secretValues } from '../security/redact.js';

export function redactSecretsInErrors(): Plugin {
  return {
    onExecute({ args }) {
      const secrets = secretValues(args.variableValues ?? {});
      if (secrets.length === 0) return undefined;
      return {
        onExecuteDone({ result, setResult }) {
          if (!('errors' in result) || !result.errors?.length) return;
          setResult({
            ...result,
            errors: result.errors.map((error) => {
              const message = scrubSecrets(error.message, secrets);
              return message === error.message
                ? error
                : new GraphQLError(message, {
                    nodes: error.nodes,
                    source: error.source,
                    positions: error.positions,
                    path: error.path,
                    extensions: error.extensions,
                  });
            }),
          });
        },
      };
    },
  };
}
