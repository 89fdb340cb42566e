/**
 * Webhooks: the delivery log of a subscription, newest first, as `GET /api/webhooks/{id}/deliveries`
 * shows it; the events set aside because their fan-out kept failing, and putting them back.
 */
import { MAX_FAN_OUT_ATTEMPTS } from '../../components/webhooks/webhooks.fan-out.js';
import { failedEvents, requeueFailedEvents } from '../../components/webhooks/webhooks.queue.js';
import { DELIVERY_STATUSES, findWebhook, listDeliveries } from '../../components/webhooks/webhooks.repository.js';
import { ALL_COMPANIES } from '../../kernel/company-scope.js';
import { toApiTime } from '../../kernel/time.js';
import { UsageError } from '../args.js';
import { defineCommand } from '../command.js';
import { jsonOption, printList, table } from '../table.js';

const STATUSES = DELIVERY_STATUSES;

export const listDeliveriesCommand = defineCommand({
  name: 'list-deliveries',
  summary: 'List the newest deliveries of a webhook subscription, with their status and last answer.',
  options: {
    webhook: { kind: 'id', required: true, help: 'the webhook subscription id' },
    status: { kind: 'choice', values: STATUSES, help: 'only deliveries with this status' },
    limit: { kind: 'int', min: 1, max: 500, help: 'how many, newest first (default 20)' },
    json: jsonOption,
  },
  migrateFirst: false,
  async run(db, o, out) {
    const webhook = await findWebhook(db, ALL_COMPANIES, o.webhook);
    if (!webhook) throw new UsageError(`--webhook ${o.webhook}: there is no webhook subscription ${o.webhook}.`);
    const { rows, total } = await listDeliveries(db, webhook.id, o.status, { page: 1, perPage: o.limit ?? 20 });
    if (o.json) return printList(out, true, rows, () => undefined);
    const which = o.status ? `${o.status} deliveries` : 'deliveries';
    const head = `Webhook ${webhook.id} of company ${webhook.company_id} (${webhook.url}${webhook.active ? '' : ', switched off'})`;
    if (rows.length === 0) {
      out(`${head} has no ${which}.`);
      return;
    }
    out(`${head}: ${rows.length} of ${total} ${which}, newest first.`);
    const cells = rows.map((d) => [
      String(d.id),
      d.event_type,
      d.status,
      String(d.attempts),
      d.last_response_code === null ? '' : String(d.last_response_code),
      d.created_at,
      d.delivered_at ?? (d.next_attempt_at ? `next ${d.next_attempt_at}` : ''),
      d.last_error ?? '',
    ]);
    for (const line of table(['id', 'event', 'status', 'attempts', 'code', 'created', 'delivered', 'last error'], cells)) out(line);
  },
});

export const listFailedEventsCommand = defineCommand({
  name: 'list-failed-events',
  summary: 'List the events set aside because their webhook fan-out kept failing (poison events), newest first.',
  options: {
    limit: { kind: 'int', min: 1, max: 500, help: 'how many, newest first (default 20)' },
    json: jsonOption,
  },
  migrateFirst: false,
  async run(db, o, out) {
    const { rows, total } = await failedEvents(db, o.limit ?? 20);
    if (o.json) {
      const records = rows.map((e) => ({ ...e, occurred_at: toApiTime(e.occurred_at), fan_out_failed_at: toApiTime(e.fan_out_failed_at) }));
      return printList(out, true, records, () => undefined);
    }
    if (total === 0) {
      out('No event is set aside: every event was fanned out to its webhook subscriptions.');
      return;
    }
    out(`${total} ${total === 1 ? 'event is' : 'events are'} set aside, their fan-out failed ${MAX_FAN_OUT_ATTEMPTS} times; ${rows.length} newest first. requeue-failed-events puts them back once the cause is fixed.`);
    const cells = rows.map((e) => [e.event_id, String(e.company_id), e.type, toApiTime(e.occurred_at), String(e.fan_out_attempts), toApiTime(e.fan_out_failed_at), e.fan_out_error ?? '']);
    for (const line of table(['event', 'company', 'type', 'occurred', 'attempts', 'set aside', 'last error'], cells)) out(line);
  },
});

export const requeueFailedEventsCommand = defineCommand({
  name: 'requeue-failed-events',
  summary: 'Put events set aside back in the webhook fan-out queue (after fixing the cause): one with --event, or --all.',
  options: {
    event: { kind: 'text', max: 40, help: 'the event id (evt_…) as list-failed-events shows it' },
    all: { kind: 'flag', help: 'every event set aside' },
  },
  check(o) {
    if ((o.event === undefined) === !o.all) throw new UsageError('Give either --event <event id> or --all.');
  },
  async run(db, o, out) {
    const count = await requeueFailedEvents(db, o.all ? 'all' : [o.event!]);
    if (count === 0 && !o.all) throw new UsageError(`--event ${o.event}: no event ${o.event} is set aside (list-failed-events shows those that are).`);
    out(`Put ${count} ${count === 1 ? 'event' : 'events'} back in the queue; the webhook worker fans ${count === 1 ? 'it' : 'them'} out in its next round.`);
  },
});

export const webhookCommands = [listDeliveriesCommand, listFailedEventsCommand, requeueFailedEventsCommand];
