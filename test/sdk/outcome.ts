/** What the ERP scenario must have seen, whichever generated client ran it, and the ledger it must have left. */
import { expect } from 'chai';
import type { Knex } from 'knex';
import { TEST_PASSWORD, unique, type World } from '../helpers/factories.js';
import { runErpIntegration, type ErpClientFactory, type ErpOutcome } from './scenario.js';
import { movements } from '../fixtures/probes.js';

/** Runs the scenario through `factory` for `world`'s client company; checks every step. */
export async function expectErpIntegration(factory: ErpClientFactory, baseUrl: string, world: World, db: Knex): Promise<ErpOutcome> {
  const tag = unique().toUpperCase();
  const outcome = await runErpIntegration(factory(baseUrl), {
    baseUrl,
    password: TEST_PASSWORD,
    operatorEmail: world.users.operator.email,
    adminEmail: world.users.admin.email,
    companyId: world.client.id,
    supplierId: world.partners.supplier,
    customerId: world.partners.client,
    warehouseId: world.warehouses[0]!,
    tag,
  });
  const [jar, can, box] = ['JAR', 'CAN', 'BOX'].map((kind) => `ERP-${kind}-${tag}`);

  expect(outcome.tokenEmail).to.equal(world.users.operator.email);
  expect(outcome.articles).to.deep.include({ codes: [jar, can, box], replayed: 'true', replayedSameId: true });
  expect(outcome.articles.patched).to.include({ article_code: jar, name: 'Tomato paste 400 g', barcode: '5941234567890', um3pl_barcode: '5941234567890', active: true });

  expect(outcome.sync).to.deep.equal({ pages: 2, codes: [world.articles.client.code, jar, can, box], inactiveCodes: [box] });

  expect(outcome.purchaseOrder).to.deep.equal({ created: 'open', afterReception: 'received', received: 10 });
  expect(outcome.stock).to.deep.equal({
    afterReception: { quantity: 10, reserved: 0, available: 10, backordered: 0 },
    afterOrder: { quantity: 10, reserved: 6, available: 4, backordered: 0 },
    afterDelivery: { quantity: 4, reserved: 0, available: 4, backordered: 0 },
    afterReturn: { quantity: 5, reserved: 0, available: 5, backordered: 0 },
    defectAfterReturn: { quantity: 2, reserved: 0, available: 2, backordered: 0 },
  });
  expect(outcome.salesOrder).to.deep.equal({ statuses: ['new', 'picking', 'picked', 'delivered'], history: ['new', 'picking', 'picked', 'delivered'] });
  expect(outcome.returned).to.deep.equal({ lines: 2, stockTypes: ['STOC_DEFECT', 'STOC_OK'] });

  expect(outcome.webhook).to.deep.equal({ events: ['sales_order.status_changed', 'stock.changed'], active: true, secretIsWhsec: true, listed: true });

  expect(outcome.duplicate).to.deep.equal({
    status: 422,
    message: 'The article_code has already been taken for this client.',
    articleCode: ['The article_code has already been taken for this client.'],
  });
  expect(outcome.notFound).to.deep.equal({ status: 404, message: `Article "NO-SUCH-${tag}" was not found.` });

  const moved = await movements(db, { company_id: world.client.id });
  expect(moved.map((m) => [m.delta, m.cause, m.stock_type])).to.deep.equal([
    [10000, 'reception', 'STOC_OK'],
    [-6000, 'delivery', 'STOC_OK'],
    [2000, 'return', 'STOC_DEFECT'],
    [1000, 'return', 'STOC_OK'],
  ]);
  return outcome;
}
