import { expect } from 'chai';
import { pageMeta, pageRequestOf, pageWindow } from '../../../src/kernel/paging.js';

describe('pageWindow', () => {
  it('When page 1 is asked for, Then the offset is 0 and the limit per_page', () => {
    expect(pageWindow({ page: 1, perPage: 25 })).to.deep.equal({ limit: 25, offset: 0 });
  });

  it('When a later page is asked for, Then the offset skips the earlier pages', () => {
    expect(pageWindow({ page: 3, perPage: 25 })).to.deep.equal({ limit: 25, offset: 50 });
    expect(pageWindow({ page: 7, perPage: 1 })).to.deep.equal({ limit: 1, offset: 6 });
  });
});

describe('pageMeta', () => {
  it('When the list is empty, Then from and to are null and there is one last page', () => {
    expect(pageMeta({ page: 1, perPage: 25 }, 0, 0)).to.deep.equal({
      current_page: 1,
      from: null,
      last_page: 1,
      per_page: 25,
      to: null,
      total: 0,
    });
  });

  it('When one partial page holds everything, Then from is 1 and to the count', () => {
    expect(pageMeta({ page: 1, perPage: 25 }, 10, 10)).to.deep.equal({
      current_page: 1,
      from: 1,
      last_page: 1,
      per_page: 25,
      to: 10,
      total: 10,
    });
  });

  it('When a full middle page is shown, Then from and to number its rows in the whole list', () => {
    expect(pageMeta({ page: 2, perPage: 25 }, 60, 25)).to.deep.equal({
      current_page: 2,
      from: 26,
      last_page: 3,
      per_page: 25,
      to: 50,
      total: 60,
    });
  });

  it('When the last, partial page is shown, Then to is the total', () => {
    expect(pageMeta({ page: 3, perPage: 25 }, 60, 10)).to.deep.equal({
      current_page: 3,
      from: 51,
      last_page: 3,
      per_page: 25,
      to: 60,
      total: 60,
    });
  });

  it('When the total fills pages exactly, Then last_page is total / per_page', () => {
    expect(pageMeta({ page: 2, perPage: 25 }, 50, 25).last_page).to.equal(2);
    expect(pageMeta({ page: 1, perPage: 25 }, 51, 25).last_page).to.equal(3);
  });

  it('When a page past the end is asked for, Then it is empty and last_page still says where the end is', () => {
    expect(pageMeta({ page: 5, perPage: 25 }, 60, 0)).to.deep.equal({
      current_page: 5,
      from: null,
      last_page: 3,
      per_page: 25,
      to: null,
      total: 60,
    });
  });
});

describe('pageRequestOf', () => {
  it('When the query names no page, Then it is page 1 of 25', () => {
    expect(pageRequestOf({})).to.deep.equal({ page: 1, perPage: 25 });
  });

  it('When the query names page and per_page, Then they are used', () => {
    expect(pageRequestOf({ page: 4, per_page: 10 })).to.deep.equal({ page: 4, perPage: 10 });
  });

  it('When another default per_page is given, Then it applies only without per_page', () => {
    expect(pageRequestOf({ page: 2 }, 50)).to.deep.equal({ page: 2, perPage: 50 });
    expect(pageRequestOf({ per_page: 5 }, 50)).to.deep.equal({ page: 1, perPage: 5 });
  });
});
