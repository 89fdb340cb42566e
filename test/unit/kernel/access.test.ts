import { expect } from 'chai';
import { isModuleSlug, isRole, modulesRequired, roleAllows, ROLES, type Role } from '../../../src/kernel/access.js';

describe('roleAllows', () => {
  // [role, least] -> allowed: viewer < operator < admin.
  const table: Array<[Role, Role, boolean]> = [
    ['viewer', 'viewer', true],
    ['viewer', 'operator', false],
    ['viewer', 'admin', false],
    ['operator', 'viewer', true],
    ['operator', 'operator', true],
    ['operator', 'admin', false],
    ['admin', 'viewer', true],
    ['admin', 'operator', true],
    ['admin', 'admin', true],
  ];

  it('When the table covers every pair of roles, Then it has all 9', () => {
    expect(new Set(table.map(([role, least]) => `${role}/${least}`)).size).to.equal(ROLES.length ** 2);
  });

  for (const [role, least, allowed] of table) {
    it(`When the role is ${role} and the operation needs ${least}, Then it is ${allowed ? 'allowed' : 'refused'}`, () => {
      expect(roleAllows(role, least)).to.equal(allowed);
    });
  }
});

describe('isRole', () => {
  it('When given a role name, Then it is a role; anything else is not', () => {
    expect(ROLES.every((role) => isRole(role))).to.equal(true);
    for (const value of ['Admin', 'owner', 'none', '']) expect(isRole(value), value).to.equal(false);
  });
});

describe('modulesRequired', () => {
  it('When the operation needs no module, Then none is required', () => {
    expect(modulesRequired('none')).to.deep.equal([]);
  });

  it('When the operation needs api, Then only api is required', () => {
    expect(modulesRequired('api')).to.deep.equal(['api']);
  });

  it('When the operation needs a content module, Then api and that module are required', () => {
    expect(modulesRequired('articles')).to.deep.equal(['api', 'articles']);
    expect(modulesRequired('webhooks')).to.deep.equal(['api', 'webhooks']);
  });

  it('When the module is unknown, Then it throws naming it', () => {
    expect(() => modulesRequired('warp-drive')).to.throw('Unknown module warp-drive');
    expect(isModuleSlug('warp-drive')).to.equal(false);
    expect(isModuleSlug('returns')).to.equal(true);
  });
});
