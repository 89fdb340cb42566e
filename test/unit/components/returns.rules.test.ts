/** What a return against a sales order may take back: per article, lot and expiry date, lines and earlier returns together. */
import { expect } from 'chai';
import { checkAgainstDelivery, deliveredBy, tally } from '../../../src/components/returns/returns.rules.js';
import type { ResolvedLine } from '../../../src/components/documents/document-lines.js';
import { Problems } from '../../../src/platform/problems.js';

const line = (index: number, articleId: number, quantity: number, lot = '', expiryDate = ''): ResolvedLine => ({
  index,
  articleId,
  articleCode: `A${articleId}`,
  um3pl: 'BUC',
  quantity,
  active: true,
  tracked: lot !== '' || expiryDate !== '',
  lot,
  expiryDate,
});

/** The problems of `lines` against what shipped and came back, as the 422 lists them. */
function problemsOf(lines: ResolvedLine[], delivered: ReturnType<typeof deliveredBy>, returned = tally(new Map(), [])): Record<string, string[]> {
  const problems = new Problems();
  checkAgainstDelivery(lines, delivered, returned, 9, problems);
  try {
    problems.throwIfAny();
    return {};
  } catch (error) {
    return (error as { errors: Record<string, string[]> }).errors;
  }
}

describe('returns.rules', () => {
  // Article 1 tracks expiry only: 10 shipped of 2027-03-01, 2 of 2027-06-01. Article 2, lot L: 5 of 2027-01-01, 1 of 2027-02-01.
  const delivered = deliveredBy([{ articleId: 1, um3pl: 'BUC', quantity: 12000 }, { articleId: 2, um3pl: 'BUC', quantity: 6000 }], [
    { articleId: 1, lot: '', expiryDate: '2027-03-01', quantity: 10000 },
    { articleId: 1, lot: '', expiryDate: '2027-06-01', quantity: 2000 },
    { articleId: 2, lot: 'L', expiryDate: '2027-01-01', quantity: 5000 },
    { articleId: 2, lot: 'L', expiryDate: '2027-02-01', quantity: 1000 },
  ]);

  it('When each line stays within its date, its lot and its article, Then nothing is said; a date over what shipped with it is refused though its lot has room', () => {
    expect(problemsOf([line(0, 1, 2000, '', '2027-06-01'), line(1, 1, 10000, '', '2027-03-01'), line(2, 2, 6000, 'L', '2027-01-01')], delivered)).to.deep.equal({
      'items.2.quantity_um3pl': ['At most 5 of lot L of article A2 with the expiry date 2027-01-01 can still be returned (5 of it delivered with that date).'],
    });
    expect(problemsOf([line(0, 1, 2000, '', '2027-06-01'), line(1, 1, 10000, '', '2027-03-01'), line(2, 2, 5000, 'L', '2027-01-01'), line(3, 2, 1000, 'L', '2027-02-01')], delivered)).to.deep.equal({});
  });

  it('When a date takes more than shipped with it, Then the quantity is refused with what is left of that date, counting earlier returns', () => {
    const returned = tally(new Map([[1, 1000]]), [{ articleId: 1, lot: '', expiryDate: '2027-06-01', quantity: 1000 }]);
    expect(problemsOf([line(0, 1, 2000, '', '2027-06-01')], delivered, returned)).to.deep.equal({
      'items.0.quantity_um3pl': ['At most 1 of article A1 with the expiry date 2027-06-01 can still be returned (2 of it delivered with that date).'],
    });
  });

  it('When the lot itself is over, Then only the lot is named on the quantity, not its date as well', () => {
    expect(problemsOf([line(0, 2, 7000, 'L', '2027-02-01')], delivered)).to.deep.equal({
      'items.0.quantity_um3pl': ['At most 6 of lot L can still be returned (6 of it delivered).', 'At most 6 of this article can still be returned (6 delivered).'],
    });
  });

  it('When a date or a lot did not ship, Then its field says so and the dates that did ship', () => {
    expect(problemsOf([line(0, 1, 1000, '', '2028-01-01'), line(1, 2, 1000, 'M', '2027-01-01'), line(2, 3, 1000)], delivered)).to.deep.equal({
      'items.0.expiry_date': ['Article A1 shipped on sales order 9 with the expiry date 2027-03-01 or 2027-06-01; give the expiry date it left with.'],
      'items.1.lot': ['Lot M of this article did not ship on sales order 9; name a lot its shipments took.'],
      'items.2.article_id': ['Article 3 was not delivered by sales order 9.'],
    });
  });

  it('When the article is now kept in another unit than the order delivered it in, Then its unit is refused (ASCII case aside)', () => {
    const byKg = deliveredBy([{ articleId: 5, um3pl: 'KG', quantity: 8000 }], []);
    expect(problemsOf([{ ...line(0, 5, 1000), um3pl: 'kg' }], byKg)).to.deep.equal({});
    expect(problemsOf([{ ...line(0, 5, 1000), um3pl: 'PAL' }], byKg)).to.deep.equal({
      'items.0.um3pl': ['Sales order 9 delivered article A5 in KG, and the article is now kept in PAL: it cannot come back against that order (the quantities would mix units); leave sales_order_id out.'],
    });
  });
});
