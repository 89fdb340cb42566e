/**
 * Every GraphQL list takes the filters of its REST list, by the same names and types, so that the
 * two cannot drift apart: a filter added to a REST list's query parameters (the document) and not
 * to its GraphQL field, or the other way round, fails here. Paging is each interface's own (REST's
 * page, per_page and after; GraphQL's limit and after).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { buildSchema, getNamedType, GraphQLEnumType, isNonNullType, isListType, type GraphQLArgument, type GraphQLField } from 'graphql';
import { listOperations, readDocument, type OperationId, type Parameter } from '../../../src/platform/openapi/document.js';
import { projectRoot } from '../../../src/platform/project-root.js';

/** Each GraphQL query field that lists rows, and the REST operation whose filters it takes. */
const REST_TWIN: Readonly<Record<string, OperationId>> = {
  articles: 'listArticles',
  partners: 'listPartners',
  warehouses: 'listWarehouses',
  purchase_orders: 'listPurchaseOrders',
  receptions: 'listReceptions',
  sales_orders: 'listSalesOrders',
  shipments: 'listShipments',
  returns: 'listReturns',
  stock: 'listStock',
  stock_as_of: 'listStockAsOf',
  stock_movements: 'listStockMovements',
  stock_adjustments: 'listStockAdjustments',
  stock_transfers: 'listStockTransfers',
  lot_trace: 'traceLot',
};

const REST_PAGING = new Set(['page', 'per_page', 'after']);
const GRAPHQL_PAGING = new Set(['limit', 'after']);

type ParameterSchema = { type?: string; format?: string; $ref?: string; enum?: string[]; items?: ParameterSchema };

function enumValues(schema: ParameterSchema): string[] | undefined {
  if (schema.enum) return schema.enum;
  if (!schema.$ref) return undefined;
  const name = schema.$ref.replace('#/components/schemas/', '');
  return (readDocument().components.schemas as Record<string, ParameterSchema>)[name]?.enum;
}

/**
 * The GraphQL type a query parameter is taken as: a list parameter (article_id=1,2) as one value,
 * GraphQL's lists being filtered by one article (docs/api.md); a date as a String checked by dateArg.
 */
function expectedType(schema: ParameterSchema): string {
  const one = schema.type === 'array' ? schema.items! : schema;
  if (enumValues(one)) return 'enum';
  if (one.type === 'integer') return 'Int';
  if (one.type === 'boolean') return 'Boolean';
  if (one.type === 'string') return one.format === 'date-time' ? 'DateTime' : 'String';
  throw new Error(`No GraphQL type for the query parameter schema ${JSON.stringify(schema)}`);
}

function graphqlType(argument: GraphQLArgument): string {
  if (isListType(argument.type) || (isNonNullType(argument.type) && isListType(argument.type.ofType))) return 'list';
  const named = getNamedType(argument.type);
  return named instanceof GraphQLEnumType ? 'enum' : named.name;
}

describe('GraphQL lists: the filters of their REST lists', () => {
  const schema = buildSchema(readFileSync(path.join(projectRoot, 'src', 'generated', 'schema.generated.graphql'), 'utf8'));
  const queryFields = schema.getQueryType()!.getFields();
  const operations = new Map(listOperations(readDocument()).map((op) => [op.operationId, op] as const));
  const filtersOf = (operationId: OperationId): Parameter[] =>
    operations.get(operationId)!.parameters.filter((p) => p.in === 'query' && !REST_PAGING.has(p.name));

  it('When the schema lists rows, Then the field names the REST list it mirrors (a new list must, here)', () => {
    const lists = Object.values(queryFields).filter((field: GraphQLField<unknown, unknown>) => field.args.some((a) => a.name === 'limit'));
    expect(lists.map((field) => field.name).filter((name) => !(name in REST_TWIN))).to.deep.equal([]);
    for (const [field, operationId] of Object.entries(REST_TWIN)) {
      expect(queryFields[field], field).to.not.equal(undefined);
      expect(operations.get(operationId), operationId).to.not.equal(undefined);
    }
  });

  for (const [field, operationId] of Object.entries(REST_TWIN)) {
    it(`When ${field} is compared with ${operationId}, Then it takes every filter of it, and no other, by the same name, type and requiredness`, () => {
      const args = queryFields[field]!.args.filter((a) => !GRAPHQL_PAGING.has(a.name));
      const filters = filtersOf(operationId);
      expect(args.map((a) => a.name).sort(), `${field}'s arguments against ${operationId}'s query parameters`).to.deep.equal(filters.map((p) => p.name).sort());
      for (const parameter of filters) {
        const argument = args.find((a) => a.name === parameter.name)!;
        const parameterSchema = parameter.schema as ParameterSchema;
        expect(graphqlType(argument), `${field}(${argument.name})`).to.equal(expectedType(parameterSchema));
        expect(isNonNullType(argument.type), `${field}(${argument.name}) required`).to.equal(parameter.required === true);
        const values = enumValues(parameterSchema.type === 'array' ? parameterSchema.items! : parameterSchema);
        if (values) {
          const named = getNamedType(argument.type) as GraphQLEnumType;
          expect(named.getValues().map((v) => v.value as string).sort(), `${field}(${argument.name}) values`).to.deep.equal([...values].sort());
        }
      }
    });
  }
});
