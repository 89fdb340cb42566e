/** The test run's settings (the test harness is the one place besides config.ts that reads process.env). */
export type TestEngine = 'sqlite' | 'mysql';

function engine(): TestEngine {
  const value = process.env.TEST_DB ?? 'sqlite';
  if (value !== 'sqlite' && value !== 'mysql') throw new Error(`TEST_DB must be sqlite or mysql (got ${value})`);
  return value;
}

export const testEnv = {
  engine: engine(),
  /** Under CI a missing MariaDB or Redis fails the run instead of skipping. */
  ci: process.env.CI === 'true',
  /** The server (and a database on it) the MariaDB suites create their own database on. */
  mysqlUrl: process.env.MYSQL_TEST_URL ?? 'mysql://root@127.0.0.1:3306/test',
  redisUrl: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
};
