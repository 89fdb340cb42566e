/**
 * The database pool's use and wait, for /metrics: connections in use, free and the pool's size,
 * requests waiting for a connection (read from knex's tarn pool at each scrape: memory, no query),
 * and how long each acquire waited (a histogram fed by the pool's own events).
 */
import type { Knex } from 'knex';
import { Gauge, Histogram, type Registry } from 'prom-client';

/** The part of tarn's Pool read here (knex's `client.pool`). */
interface TarnPool {
  readonly max: number;
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  numPendingCreates(): number;
  on(event: 'acquireRequest', listener: (eventId: number) => void): void;
  on(event: 'acquireSuccess' | 'acquireFail', listener: (eventId: number) => void): void;
}

function poolOf(db: Knex): TarnPool | undefined {
  return (db.client as { pool?: TarnPool }).pool;
}

export function observePool(registry: Registry, db: Knex): void {
  const registers = [registry];
  const wait = new Histogram({
    name: 'tpl_db_pool_acquire_wait_seconds',
    help: 'How long a query or transaction waited for a database connection from the pool.',
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers,
  });
  const watched = new WeakSet<TarnPool>();
  /** Times the acquires of a pool (a destroyed pool is replaced by knex: the new one is watched at the next scrape). */
  const watch = (pool: TarnPool | undefined): TarnPool | undefined => {
    if (!pool || watched.has(pool)) return pool;
    watched.add(pool);
    const started = new Map<number, number>();
    pool.on('acquireRequest', (id) => void started.set(id, performance.now()));
    const done = (id: number): void => {
      const at = started.get(id);
      started.delete(id);
      if (at !== undefined) wait.observe((performance.now() - at) / 1000);
    };
    pool.on('acquireSuccess', done);
    pool.on('acquireFail', done);
    return pool;
  };
  watch(poolOf(db));
  new Gauge({
    name: 'tpl_db_pool_connections',
    help: 'Database connections of the pool by state: used, free, pending_create (being opened), max (the pool size).',
    labelNames: ['state'],
    registers,
    collect() {
      const pool = watch(poolOf(db));
      this.set({ state: 'used' }, pool?.numUsed() ?? 0);
      this.set({ state: 'free' }, pool?.numFree() ?? 0);
      this.set({ state: 'pending_create' }, pool?.numPendingCreates() ?? 0);
      this.set({ state: 'max' }, pool?.max ?? 0);
    },
  });
  new Gauge({
    name: 'tpl_db_pool_pending_acquires',
    help: 'Queries and transactions waiting for a database connection now.',
    registers,
    collect() {
      this.set(watch(poolOf(db))?.numPendingAcquires() ?? 0);
    },
  });
}
