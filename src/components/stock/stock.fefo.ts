/**
 * FEFO allocation, pure: how what open sales orders reserve of an article that tracks lots or
 * expiry dates spreads over its balance rows (one stock key without lot: client, warehouse,
 * article, stock type). Lines that pin a lot are served first, from that lot; the rest takes rows
 * earliest expiry first (rows without an expiry date last), then by lot, then oldest row (id).
 * A row whose expiry date is before today is never allocated, nor a row with nothing on hand; what
 * no row can hold stays unallocated (the caller shows it as backordered on the row without lot).
 */

/** A balance row of the key, quantities in thousandths; lot and expiry '' for none. */
export interface AllocationRow {
  id: number;
  lot: string;
  expiryDate: string;
  quantity: number;
}

/** What open lines reserve: `lot` is the pinned lot, '' for lines without a pin. */
export interface Demand {
  lot: string;
  quantity: number;
}

export interface Allocation {
  /** Thousandths allocated to each row id (rows with nothing allocated are absent). */
  reserved: Map<number, number>;
  /** The part of `reserved` that serves pinned lines. */
  pinned: Map<number, number>;
  /** Thousandths no row could hold. */
  unallocated: number;
}

/** Rows in the order FEFO takes them: expiry date (none last), lot, id. */
export function fefoOrder<Row extends AllocationRow>(rows: readonly Row[]): Row[] {
  return [...rows].sort(
    (a, b) =>
      Number(a.expiryDate === '') - Number(b.expiryDate === '') ||
      (a.expiryDate < b.expiryDate ? -1 : a.expiryDate > b.expiryDate ? 1 : 0) ||
      (a.lot < b.lot ? -1 : a.lot > b.lot ? 1 : 0) ||
      a.id - b.id,
  );
}

/** Whether a stored expiry date ('' for none) is before `today` (`YYYY-MM-DD`, UTC): the one rule of expiry. */
export function isExpired(expiryDate: string, today: string): boolean {
  return expiryDate !== '' && expiryDate < today;
}

/** Whether a row can be allocated or shipped from: it holds stock and has not expired (`today` is `YYYY-MM-DD`, UTC). */
export function isEligible(row: AllocationRow, today: string): boolean {
  return row.quantity > 0 && !isExpired(row.expiryDate, today);
}

/** Spreads `demands` over `rows` (see the file's comment). */
export function allocate(rows: readonly AllocationRow[], demands: readonly Demand[], today: string): Allocation {
  const eligible = fefoOrder(rows.filter((row) => isEligible(row, today)));
  const reserved = new Map<number, number>();
  const pinned = new Map<number, number>();
  let unallocated = 0;
  const take = (candidates: readonly AllocationRow[], need: number, into: Map<number, number>[]): number => {
    for (const row of candidates) {
      if (need === 0) break;
      const free = row.quantity - (reserved.get(row.id) ?? 0);
      const part = Math.min(free, need);
      if (part <= 0) continue;
      for (const map of into) map.set(row.id, (map.get(row.id) ?? 0) + part);
      need -= part;
    }
    return need;
  };
  const pins = demands.filter((d) => d.lot !== '' && d.quantity > 0).sort((a, b) => (a.lot < b.lot ? -1 : a.lot > b.lot ? 1 : 0));
  for (const demand of pins) {
    unallocated += take(eligible.filter((row) => row.lot === demand.lot), demand.quantity, [reserved, pinned]);
  }
  const free = demands.filter((d) => d.lot === '').reduce((sum, d) => sum + d.quantity, 0);
  unallocated += take(eligible, free, [reserved]);
  return { reserved, pinned, unallocated };
}

/** One part of a shipment: what it takes of a row. */
export interface Take {
  row: AllocationRow;
  quantity: number;
}

/**
 * What shipping `quantity` of a line takes, earliest expiry first: a pinned line (`lot`) only from
 * rows of its lot; a line without a pin from every eligible row, less what pinned lines hold on it.
 * Undefined when the rows cannot give that much (with what they can give).
 */
export function shipmentTakes(rows: readonly AllocationRow[], demands: readonly Demand[], line: { lot: string; quantity: number }, today: string): { takes: Take[] } | { short: number; available: number } {
  const { pinned } = allocate(rows, demands, today);
  const candidates = fefoOrder(rows.filter((row) => isEligible(row, today) && (line.lot === '' || row.lot === line.lot)));
  const takes: Take[] = [];
  let need = line.quantity;
  let available = 0;
  for (const row of candidates) {
    const free = line.lot === '' ? row.quantity - (pinned.get(row.id) ?? 0) : row.quantity;
    if (free <= 0) continue;
    available += free;
    const part = Math.min(free, need);
    if (part > 0) takes.push({ row, quantity: part });
    need -= part;
  }
  return need > 0 ? { short: need, available } : { takes };
}

/**
 * The day a pinned lot expired when every row of it that the order could take from has (its
 * latest expiry date, all of them before `today`), or undefined: no row yet (the lot may still be
 * received), or one that has not expired or carries no expiry date. `dates`: '' for none.
 */
export function pinExpiredOn(dates: readonly string[], today: string): string | undefined {
  if (dates.length === 0 || !dates.every((date) => isExpired(date, today))) return undefined;
  return dates.reduce((latest, date) => (date > latest ? date : latest));
}
