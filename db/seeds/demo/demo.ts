/**
 * The demo data of `make run`: provider Demo Logistics with clients Acme Foods and Globex Retail,
 * two warehouses, a unit catalogue, partners, a few articles per client, five users (password
 * `demo-password`), and a purchase order per client received in part or in full. Every module is
 * on, except `returns` for Globex Retail, so a 403 can be seen.
 */
import type { Knex } from 'knex';
import { hashPassword } from '../../../src/components/auth/passwords.js';
import * as build from '../builders.js';
import { seedDemoDocuments } from './demo-documents.js';

export const DEMO_PASSWORD = 'demo-password';

export const DEMO_LOGINS = [
  { email: 'admin@demo.test', what: 'super-admin (every company)' },
  { email: 'ops@demo.test', what: 'admin of Demo Logistics (the provider) and so of its clients' },
  { email: 'acme.operator@demo.test', what: 'operator of Acme Foods' },
  { email: 'acme.viewer@demo.test', what: 'viewer of Acme Foods (reads only)' },
  { email: 'globex.admin@demo.test', what: 'admin of Globex Retail (its returns module is off)' },
] as const;

/** Seeds the demo once; answers false when the database already has companies. */
export async function seedDemo(db: Knex): Promise<boolean> {
  const existing = await db('companies').count({ n: '*' }).first();
  if (Number(existing?.n ?? 0) > 0) return false;
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  await db.transaction(async (tx) => {
    const provider = await build.insertCompany(tx, { name: 'Demo Logistics', type: 'provider', vat_code: 'RO10000001' });
    const acme = await build.insertCompany(tx, { name: 'Acme Foods', type: 'client', provider_id: provider, vat_code: 'RO20000002' });
    const globex = await build.insertCompany(tx, { name: 'Globex Retail', type: 'client', provider_id: provider, vat_code: 'RO30000003' });
    await build.setModules(tx, provider);
    await build.setModules(tx, acme);
    await build.setModules(tx, globex, ['returns']);

    await build.insertWarehouse(tx, { company_id: provider, code: 'WH-BUC', name: 'Bucharest North', address: 'Sos. Industriilor 10, Bucuresti' });
    await build.insertWarehouse(tx, { company_id: provider, code: 'WH-CLJ', name: 'Cluj West', address: 'Str. Fabricii 5, Cluj-Napoca' });
    for (const [code, name, integerOnly] of [
      ['BUC', 'Piece', true],
      ['CUT', 'Box', true],
      ['PAL', 'Pallet', true],
      ['KG', 'Kilogram', false],
      ['L', 'Litre', false],
    ] as const) {
      await build.insertUnit(tx, { company_id: provider, code, name, integer_only: integerOnly });
    }

    await build.insertPartner(tx, { company_id: acme, type: 'supplier', code: 'SUP-ACME-01', name: 'Fresh Farms SRL', vat_code: 'RO40000004', email: 'orders@freshfarms.example' });
    await build.insertPartner(tx, { company_id: acme, type: 'client', code: 'CLI-ACME-01', name: 'Mega Market SA', vat_code: 'RO50000005', address: 'Bd. Unirii 1, Bucuresti' });
    await build.insertPartner(tx, { company_id: globex, type: 'supplier', code: 'SUP-GLX-01', name: 'Steel Parts GmbH', email: 'sales@steelparts.example' });
    await build.insertPartner(tx, { company_id: globex, type: 'client', code: 'CLI-GLX-01', name: 'City Stores SRL', address: 'Str. Mare 7, Iasi' });

    for (const [company, code, description, um3pl, integerOnly, barcode] of [
      [acme, 'ACME-TOM-400', 'Tomato paste 400 g jar', 'BUC', true, '5940000000017'],
      [acme, 'ACME-FLR-1KG', 'Wheat flour 1 kg bag', 'BUC', true, '5940000000024'],
      [acme, 'ACME-OIL-5L', 'Sunflower oil 5 L can', 'CUT', true, null],
      [acme, 'ACME-CHS-KG', 'Cheese, sold by weight', 'KG', false, null],
      [globex, 'GLX-BOLT-M8', 'Bolt M8 x 40, zinc plated', 'BUC', true, '4000000000011'],
      [globex, 'GLX-WIRE-KG', 'Steel wire, by weight', 'KG', false, null],
      [globex, 'GLX-PAL-EUR', 'Euro pallet of mixed parts', 'PAL', true, null],
    ] as const) {
      await build.insertArticle(tx, { company_id: company, article_code: code, description, um3pl, integer_only_um3pl_quantity: integerOnly, barcode });
    }
    // Kept per lot and expiry date: shipped earliest expiry first (FEFO), traced by lot.
    await build.insertArticle(tx, {
      company_id: acme,
      article_code: 'ACME-YOG-125',
      description: 'Yogurt 125 g cup',
      um3pl: 'BUC',
      integer_only_um3pl_quantity: true,
      lot_tracked: true,
      expiry_tracked: true,
      barcode: '5940000000031',
    });

    const user = (name: string, email: string, primary: number | null, superAdmin = false) =>
      build.insertUser(tx, { name, email, password_hash: passwordHash, is_super_admin: superAdmin, primary_company_id: primary });
    await user('Demo Admin', 'admin@demo.test', provider, true);
    await build.addMembership(tx, await user('Olivia Ops', 'ops@demo.test', provider), provider, 'admin');
    await build.addMembership(tx, await user('Ana Operator', 'acme.operator@demo.test', acme), acme, 'operator');
    await build.addMembership(tx, await user('Victor Viewer', 'acme.viewer@demo.test', acme), acme, 'viewer');
    await build.addMembership(tx, await user('Gina Globex', 'globex.admin@demo.test', globex), globex, 'admin');
  });
  await seedDemoDocuments(db);
  return true;
}
