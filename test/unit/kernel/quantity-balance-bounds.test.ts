/**
 * A document's lines of one article cannot by themselves pass the most a stock balance holds: every
 * array of quantity lines in a request of the document holds at most maxItems lines of at most
 * MAX_QUANTITY, and that product stays within MAX_BALANCE. Raising a maxItems beyond that fails here.
 */
import { expect } from 'chai';
import { MAX_BALANCE, MAX_QUANTITY } from '../../../src/kernel/quantity.js';
import { readDocument } from '../../../src/platform/openapi/document.js';

type Json = Record<string, unknown>;

describe('Balance bounds', () => {
  it('When every array of quantity lines in the document is read, Then its maxItems × MAX_QUANTITY is within MAX_BALANCE, far below 2^53 thousandths', () => {
    const schemas = (readDocument().components as { schemas: Record<string, Json> }).schemas;
    const resolve = (s: Json): Json => (typeof s.$ref === 'string' ? resolve(schemas[s.$ref.replace('#/components/schemas/', '')]!) : s);
    const lineArrays: Array<[string, number]> = [];
    for (const [name, schema] of Object.entries(schemas).filter(([n]) => /(Create|Update)$/.test(n))) {
      for (const [property, value] of Object.entries((schema.properties as Record<string, Json> | undefined) ?? {})) {
        if (value.type !== 'array') continue;
        const item = resolve(value.items as Json);
        if ((item.properties as Json | undefined)?.quantity_um3pl === undefined) continue;
        lineArrays.push([`${name}.${property}`, value.maxItems as number]);
      }
    }
    expect(lineArrays.map(([where]) => where)).to.include.members(['PurchaseOrderCreate.items', 'SalesOrderCreate.items', 'ReturnCreate.items', 'ReceptionCreate.selected_items']);
    for (const [where, maxItems] of lineArrays) expect(maxItems * MAX_QUANTITY, where).to.be.at.most(MAX_BALANCE);
    expect(MAX_BALANCE * 1000 * 9).to.be.below(2 ** 53);
  });
});
