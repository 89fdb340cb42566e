/** Webhooks: the delivery log of a subscription, newest first, as `GET /api/webhooks/{id}/deliveries` shows it. */
import { DELIVERY_STATUSES, findWebhook, listDeliveries } from '../../components/webhooks/webhooks.repository.js';
import { ALL_COMPANIES } from '../../kernel/company-scope.js';
import { UsageError } from '../args.js';
import { defineCommand } from '../command.js';
import { table } from '../table.js';

const STATUSES = DELIVERY_STATUSES;

export const listDeliveriesCommand = defineCommand({
  name: 'list-deliveries',
  summary: 'List the newest deliveries of a webhook subscription, with their status and last answer.',
  options: {
    webhook: { kind: 'id', required: true, help: 'the webhook subscription id' },
    status: { kind: 'choice', values: STATUSES, help: 'only deliveries with this status' },
    limit: { kind: 'int', min: 1, max: 500, help: 'how many, newest first (default 20)' },
  },
  async run(db, o, out) {
    const webhook = await findWebhook(db, ALL_COMPANIES, o.webhook);
    if (!webhook) throw new UsageError(`--webhook ${o.webhook}: there is no webhook subscription ${o.webhook}.`);
    const { rows, total } = await listDeliveries(db, webhook.id, o.status, { page: 1, perPage: o.limit ?? 20 });
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

export const webhookCommands = [listDeliveriesCommand];
