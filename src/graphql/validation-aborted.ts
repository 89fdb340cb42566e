/**
 * graphql-js stops validating a query whose fields it cannot afford to check for merging (the same
 * field or fragment repeated hundreds of times: its OverlappingFieldsCanBeMerged budget) with an
 * error that says only "Validation aborted.". This plugin words it as what to fix, with the code of
 * the other refusals of validation.
 */
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';

const ABORTED = 'Validation aborted.';

const REPEATED_FIELDS = 'The query repeats fields or fragments too often to be checked: ask each field once (repeats of one field answer the same).';

export function useValidationAbortedMessage(): Plugin {
  return {
    onValidate: () => ({ result, setResult }) => {
      if (!result.some((error) => error.message === ABORTED)) return;
      setResult(result.map((error) => (error.message === ABORTED ? new GraphQLError(REPEATED_FIELDS, { extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }) : error)));
    },
  };
}
