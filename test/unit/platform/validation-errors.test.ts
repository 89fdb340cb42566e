import { expect } from 'chai';
import type { Parameter } from '../../../src/platform/openapi/document.js';
import { toFieldErrors, type ValidatorErrorItem } from '../../../src/platform/http/validation-errors.js';

const PARAMETERS: Parameter[] = [
  { name: 'X-Company-Id', in: 'header', required: true },
  { name: 'Idempotency-Key', in: 'header' },
  { name: 'per_page', in: 'query', schema: { type: 'integer' } },
  { name: 'article_id', in: 'query', schema: { type: 'integer' } },
  { name: 'stock_type', in: 'query', schema: { $ref: '#/components/schemas/StockType' } },
  { name: 'code', in: 'query', schema: { type: 'string' } },
  { name: 'expires_before', in: 'query', schema: { type: 'string', format: 'date' } },
  { name: 'article_ids', in: 'query', schema: { type: 'array', items: { type: 'integer' } } },
  { name: 'types', in: 'query', schema: { type: 'array', items: { $ref: '#/components/schemas/StockType' } } },
];

/** One error as express-openapi-validator reports it (ajv's keyword + '.openapi.validation'). */
function item(path: string, keyword: string, message: string): ValidatorErrorItem {
  return { path, message, errorCode: `${keyword}.openapi.validation` };
}

function one(path: string, keyword: string, message: string): Record<string, string[]> {
  return toFieldErrors([item(path, keyword, message)], PARAMETERS);
}

describe('toFieldErrors', () => {
  describe('field names', () => {
    it('When the error is deep in the body, Then the key is the dotted path without body (items.0.quantity_um3pl)', () => {
      expect(one('/body/items/0/quantity_um3pl', 'exclusiveMinimum', 'must be > 0')).to.deep.equal({
        'items.0.quantity_um3pl': ['The items.0.quantity_um3pl field must be greater than 0.'],
      });
    });

    it('When the error is on a query parameter, Then the key is its name (per_page)', () => {
      expect(one('/query/per_page', 'maximum', 'must be <= 100')).to.deep.equal({
        per_page: ['The per_page field must not be greater than 100.'],
      });
    });

    it('When the error is on a header, Then the key is its name in the case the parameters give (X-Company-Id)', () => {
      expect(one('/headers/x-company-id', 'type', 'must be integer')).to.deep.equal({
        'X-Company-Id': ['The X-Company-Id header must be an integer.'],
      });
      expect(Object.keys(one('/headers/idempotency-key', 'maxLength', 'must NOT have more than 255 characters'))).to.deep.equal([
        'Idempotency-Key',
      ]);
    });

    it('When the header is not among the parameters, Then the key is the name as reported', () => {
      expect(Object.keys(one('/headers/x-other', 'type', 'must be string'))).to.deep.equal(['x-other']);
    });

    it('When the error is on a path parameter, Then the key is its name', () => {
      expect(Object.keys(one('/params/id', 'type', 'must be integer'))).to.deep.equal(['id']);
      expect(Object.keys(one('/path/articleCode', 'maxLength', 'must NOT have more than 64 characters'))).to.deep.equal(['articleCode']);
    });

    it('When the path names the body itself, or nothing, Then the key is body', () => {
      expect(one('/body', 'type', 'must be object')).to.deep.equal({ body: ['The body field must be an object.'] });
      expect(Object.keys(toFieldErrors([{ message: 'is odd' }], PARAMETERS))).to.deep.equal(['body']);
    });

    it('When a property name holds JSON-pointer escapes, Then they are unescaped (~1 is /, ~0 is ~)', () => {
      expect(Object.keys(one('/body/a~1b/c~0d', 'type', 'must be string'))).to.deep.equal(['a/b.c~d']);
    });

    it('When the path has no known location, Then it is dotted as it is', () => {
      expect(Object.keys(one('/items/0/um3pl', 'type', 'must be string'))).to.deep.equal(['items.0.um3pl']);
    });
  });

  describe('messages', () => {
    const cases: Array<[string, string, string, string]> = [
      ['required', '/body/article_code', "must have required property 'article_code'", 'The article_code field is required.'],
      ['additionalProperties', '/body/company_id', 'must NOT have additional properties', 'The company_id field is not allowed.'],
      ['format', '/body/email', 'must match format "email"', 'The email field must be a valid email address.'],
      [
        'format',
        '/query/updated_since',
        'must match format "date-time"',
        'The updated_since field must be an ISO 8601 date-time with a UTC offset or Z, such as 2026-11-21T10:00:00Z.',
      ],
      ['format', '/body/url', 'must match format "uri"', 'The url field must match format "uri".'],
      ['enum', '/query/format', 'must be equal to one of the allowed values: json, prometheus', 'The format field must be one of: json, prometheus.'],
      ['maximum', '/query/per_page', 'must be <= 100', 'The per_page field must not be greater than 100.'],
      ['minimum', '/query/page', 'must be >= 1', 'The page field must be at least 1.'],
      ['exclusiveMaximum', '/body/n', 'must be < 10', 'The n field must be less than 10.'],
      ['type', '/body/id', 'must be integer', 'The id field must be an integer.'],
      ['type', '/body/qty', 'must be number', 'The qty field must be a number.'],
      ['type', '/body/active', 'must be boolean', 'The active field must be true or false.'],
      ['type', '/body/items', 'must be array', 'The items field must be an array.'],
      ['type', '/body/name', 'must be string,null', 'The name field must be a string or null.'],
      ['minLength', '/body/description', 'must NOT have fewer than 1 characters', 'The description field must not be empty.'],
      ['minLength', '/body/code', 'must NOT have fewer than 3 characters', 'The code field must be at least 3 characters long.'],
      ['maxLength', '/body/code', 'must NOT have more than 64 characters', 'The code field must not be longer than 64 characters.'],
      ['minItems', '/body/items', 'must NOT have fewer than 1 items', 'The items field must have at least 1 item.'],
      ['minItems', '/body/events', 'must NOT have fewer than 2 items', 'The events field must have at least 2 items.'],
      ['maxItems', '/body/items', 'must NOT have more than 500 items', 'The items field must not have more than 500 items.'],
      ['pattern', '/body/code', 'must match pattern "^[A-Z]+$"', 'The code field must match pattern "^[A-Z]+$".'],
    ];
    for (const [keyword, path, message, sentence] of cases) {
      it(`When ${keyword} says "${message}", Then the sentence is "${sentence}"`, () => {
        const errors = one(path, keyword, message);
        expect(Object.values(errors)).to.deep.equal([[sentence]]);
      });
    }

    it('When the item has no message, Then the field "is invalid"', () => {
      expect(toFieldErrors([{ path: '/body/x', errorCode: 'type.openapi.validation' }], PARAMETERS)).to.deep.equal({
        x: ['The x field is invalid.'],
      });
    });

    it("When the validator's own message is about an unknown or empty query parameter, Then it is reworded in the house style", () => {
      const errors = toFieldErrors(
        [
          { path: '/query/colour', message: "Unknown query parameter 'colour'" },
          { path: '/query/page', message: "Empty value found for query parameter 'page'" },
        ],
        PARAMETERS,
      );
      expect(errors).to.deep.equal({
        colour: ['The colour field is not allowed.'],
        page: ['The page field must not be empty; leave it out instead.'],
      });
    });

    it('When a value of a list of choices is none of them (types=stock.changed,x), Then it says what the list must hold, not "one of"', () => {
      expect(toFieldErrors([item('/query/types/1', 'enum', 'must be equal to one of the allowed values: STOC_OK, STOC_DEFECT, STOC_QUARANTINE')], PARAMETERS)).to.deep.equal({
        types: ['The types field must be a comma-separated list of: STOC_OK, STOC_DEFECT, STOC_QUARANTINE.'],
      });
    });

    it('When ajv-formats says an id is not int32 beside its maximum, Then only the maximum is said', () => {
      const errors = toFieldErrors(
        [item('/params/id', 'maximum', 'must be <= 2147483647'), item('/params/id', 'format', 'must match format "int32"')],
        PARAMETERS,
      );
      expect(errors).to.deep.equal({ id: ['The id field must not be greater than 2147483647.'] });
    });
  });

  describe('grouping', () => {
    it('When the alternatives of an anyOf fail, Then the field gets one message saying its type is not allowed', () => {
      const path = '/body/items/0/quantity_um3pl';
      const errors = toFieldErrors(
        [
          item(path, 'type', 'must be number'),
          item(path, 'type', 'must be string'),
          item(path, 'pattern', 'must match pattern "^[0-9]+([.,][0-9]{1,3})?$"'),
          item(path, 'anyOf', 'must match a schema in anyOf'),
          item(path, 'type', 'must be integer'),
          item('/body/items/0/um3pl', 'required', "must have required property 'um3pl'"),
        ],
        PARAMETERS,
      );
      expect(errors).to.deep.equal({
        'items.0.quantity_um3pl': ['The items.0.quantity_um3pl field does not have an allowed type.'],
        'items.0.um3pl': ['The items.0.um3pl field is required.'],
      });
    });

    it('When the field whose alternatives fail is a quantity of the body\'s schema (x-quantity, also under allOf), Then it answers the quantity\'s message, or its length limit when a string was too long', () => {
      const TYPE = 'The quantity must be a number, or a string such as "1,5".';
      const alternatives = (path: string, ...rest: ValidatorErrorItem[]) => [item(path, 'type', 'must be number'), ...rest, item(path, 'anyOf', 'must match a schema in anyOf')];
      const order = { $ref: '#/components/schemas/SalesOrderCreate' };
      expect(toFieldErrors(alternatives('/body/items/0/quantity_um3pl', item('/body/items/0/quantity_um3pl', 'type', 'must be string')), [], order)).to.deep.equal({
        'items.0.quantity_um3pl': [TYPE],
      });
      expect(toFieldErrors(alternatives('/body/items/3/quantity_um3pl', item('/body/items/3/quantity_um3pl', 'maxLength', 'must NOT have more than 32 characters')), [], order)).to.deep.equal({
        'items.3.quantity_um3pl': ['The quantity must not be longer than 32 characters.'],
      });
      const shipment = { $ref: '#/components/schemas/ShipmentCreate' };
      expect(toFieldErrors(alternatives('/body/items/0/quantity_um3pl'), [], shipment)).to.deep.equal({ 'items.0.quantity_um3pl': [TYPE] });
      const adjustment = { $ref: '#/components/schemas/StockAdjustmentCreate' };
      expect(toFieldErrors([...alternatives('/body/items/0/delta_um3pl'), ...alternatives('/body/items/1/counted_um3pl')], [], adjustment)).to.deep.equal({
        'items.0.delta_um3pl': [TYPE],
        'items.1.counted_um3pl': [TYPE],
      });
      // A field that is not a quantity, or a path the schema does not describe, keeps the general message.
      expect(toFieldErrors(alternatives('/body/notes'), [], order)).to.deep.equal({ notes: ['The notes field does not have an allowed type.'] });
      expect(toFieldErrors(alternatives('/body/items/x/quantity_um3pl'), [], order)).to.deep.equal({ 'items.x.quantity_um3pl': ['The items.x.quantity_um3pl field does not have an allowed type.'] });
    });

    it('When a oneOf fails, Then it collapses the same way', () => {
      const errors = toFieldErrors(
        [item('/body/target', 'type', 'must be string'), item('/body/target', 'oneOf', 'must match exactly one schema in oneOf')],
        PARAMETERS,
      );
      expect(errors).to.deep.equal({ target: ['The target field does not have an allowed type.'] });
    });

    it('When the same error is reported twice, Then it appears once', () => {
      const errors = toFieldErrors(
        [item('/body/email', 'format', 'must match format "email"'), item('/body/email', 'format', 'must match format "email"')],
        PARAMETERS,
      );
      expect(errors).to.deep.equal({ email: ['The email field must be a valid email address.'] });
    });

    it('When one field breaks several rules, Then each message is kept, in order', () => {
      const errors = toFieldErrors(
        [item('/body/code', 'maxLength', 'must NOT have more than 4 characters'), item('/body/code', 'pattern', 'must match pattern "^[A-Z]+$"')],
        PARAMETERS,
      );
      expect(errors).to.deep.equal({
        code: ['The code field must not be longer than 4 characters.', 'The code field must match pattern "^[A-Z]+$".'],
      });
    });

    it('When the header is reported in two cases, Then both land on the one canonical key', () => {
      const errors = toFieldErrors(
        [item('/headers/x-company-id', 'type', 'must be integer'), item('/headers/X-COMPANY-ID', 'minimum', 'must be >= 1')],
        PARAMETERS,
      );
      expect(errors).to.deep.equal({
        'X-Company-Id': ['The X-Company-Id header must be an integer.', 'The X-Company-Id header must be at least 1.'],
      });
    });

    it('When there are no items, Then there are no field errors', () => {
      expect(toFieldErrors([], PARAMETERS)).to.deep.equal({});
    });
  });
});
