/**
 * The modules' say over a delivery already queued (a retry, a ping, a redelivery): the fan-out
 * queues an event only for subscriptions the modules let have it, and a module may be switched off
 * before the delivery is sent. The worker asks again before each send, and ping and redeliver
 * before they queue (webhooks.rules.ts withheldBy).
 */
import type { Knex } from 'knex';
import { envelopeCompanyId, type EventType } from '../../platform/outbox.js';
import { activeModulesOfEach } from '../companies/companies.service.js';
import { EVENT_MODULES } from '../events/events.service.js';
import { withheldBy, type Withheld } from './webhooks.rules.js';

export interface QueuedDelivery {
  /** The company that owns the subscription. */
  company_id: number;
  event_type: string;
  /** The body to send, whose envelope names the company the event is about (none: the subscriber's own, as a ping). */
  payload?: string;
}

/** The company an event body is about; a body whose envelope cannot be read counts as the subscriber's own. */
function aboutCompany(delivery: QueuedDelivery): number {
  if (delivery.payload === undefined) return delivery.company_id;
  try {
    return envelopeCompanyId(delivery.payload);
  } catch {
    return delivery.company_id;
  }
}

/** The modules on for each of `companyIds`, as sets (one query). */
export async function modulesOn(db: Knex, companyIds: readonly number[]): Promise<Map<number, ReadonlySet<string>>> {
  const modules = await activeModulesOfEach(db, [...new Set(companyIds.map(Number))]);
  return new Map([...modules].map(([id, slugs]) => [id, new Set(slugs)]));
}

/** What withholds an event of `type` about `clientId` from a subscription of `subscriberId`, given the modules on (modulesOn). */
export function withheldByModules(type: string, subscriberId: number, clientId: number, modules: ReadonlyMap<number, ReadonlySet<string>>): Withheld | undefined {
  const subscriber = { id: subscriberId, modules: modules.get(subscriberId) };
  return withheldBy(type, EVENT_MODULES[type as EventType], subscriber, { id: clientId, modules: modules.get(clientId) });
}

/** For each delivery, in order, what withholds it now, or undefined when it may go: one query. */
export async function withheldNow(db: Knex, deliveries: readonly QueuedDelivery[]): Promise<Array<Withheld | undefined>> {
  const about = deliveries.map(aboutCompany);
  const modules = await modulesOn(db, [...deliveries.map((d) => d.company_id), ...about]);
  return deliveries.map((delivery, i) => withheldByModules(delivery.event_type, delivery.company_id, about[i]!, modules));
}
