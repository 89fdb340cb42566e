/** The events a test's writes recorded in the outbox. */
import type { Knex } from 'knex';

export async function recordedEvents(db: Knex, companyId: number, type = 'article.created'): Promise<Array<{ event_id: string; data: unknown }>> {
  const rows: Array<{ event_id: string; data: string }> = await db('outbox_events').where({ company_id: companyId, type }).orderBy('id');
  return rows.map((row) => ({ event_id: row.event_id, data: JSON.parse(row.data) as unknown }));
}

/** The data of the `article.updated` events of one article. */
export async function articleUpdates(db: Knex, companyId: number, articleId: number): Promise<unknown[]> {
  return (await recordedEvents(db, companyId, 'article.updated')).map((e) => e.data).filter((data) => (data as { id: number }).id === articleId);
}
