import { expect } from 'chai';
import { ConfigError, loadConfig, type Config } from '../../src/config.js';

describe('loadConfig', () => {
  it('When nothing is set, Then every value has its documented default', () => {
    const expected: Config = {
      appName: '3PL Integration API',
      appEnv: 'local',
      production: false,
      host: '0.0.0.0',
      port: 3000,
      appUrl: 'http://localhost:3000',
      databaseUrl: 'sqlite:./data/dev.sqlite',
      redisUrl: undefined,
      redisPrefix: 'tpl',
      etsmToken: undefined,
      mdmToken: undefined,
      anafEnabled: false,
      logLevel: 'info',
      worker: 'in-process',
      rateLimitAuthPerMinute: 10,
      rateLimitAuthPerAddressPerMinute: 30,
      rateLimitDataPerMinute: 60,
      rateLimitFailedAuthPerMinute: 30,
      loginHashConcurrency: 4,
      loginHashQueue: 32,
      storagePath: './storage',
      heartbeatStaleMinutes: 5,
      trustProxy: false,
      webhookAllowHttp: false,
      webhookAllowPrivateTargets: false,
      webhookTimeoutMs: 10_000,
      webhookMaxSubscriptions: 25,
      workerPollMs: 1000,
      workerMetricsPort: undefined,
      eventsRetentionDays: 30,
      authCacheTtlSeconds: 10,
      httpHeadersTimeoutMs: 20_000,
      httpRequestTimeoutMs: 30_000,
      httpKeepAliveTimeoutMs: 5_000,
    };
    expect(loadConfig({})).to.deep.equal(expected);
  });

  it('When a variable is set to the empty string, Then its default applies', () => {
    const config = loadConfig({ PORT: '', LOG_LEVEL: '', REDIS_URL: '', ANAF_ENABLED: '', DATABASE_URL: '', APP_URL: '' });
    expect(config).to.include({ port: 3000, logLevel: 'info', redisUrl: undefined, anafEnabled: false, appUrl: 'http://localhost:3000' });
    expect(config.databaseUrl).to.equal('sqlite:./data/dev.sqlite');
  });

  it('When values are set, Then they are parsed', () => {
    const config = loadConfig({
      APP_ENV: 'production',
      PORT: '8080',
      DATABASE_URL: 'mysql://user:pass@db:3306/tpl',
      REDIS_URL: 'redis://cache:6379',
      REDIS_PREFIX: 'wms-eu:prod',
      ETSM_TOKEN: 'etsm',
      MDM_TOKEN: 'mdm',
      ANAF_ENABLED: 'YES',
      LOG_LEVEL: 'debug',
      WORKER: 'off',
      RATE_LIMIT_AUTH_PER_MINUTE: '5',
      RATE_LIMIT_AUTH_PER_ADDRESS_PER_MINUTE: '50',
      RATE_LIMIT_DATA_PER_MINUTE: '600',
      RATE_LIMIT_FAILED_AUTH_PER_MINUTE: '20',
      LOGIN_HASH_CONCURRENCY: '2',
      LOGIN_HASH_QUEUE: '0',
      HEARTBEAT_STALE_MINUTES: '10080',
      TRUST_PROXY: '2',
      WORKER_METRICS_PORT: '9464',
    });
    expect(config).to.include({
      redisPrefix: 'wms-eu:prod',
      appEnv: 'production',
      production: true,
      port: 8080,
      appUrl: 'http://localhost:8080',
      databaseUrl: 'mysql://user:pass@db:3306/tpl',
      redisUrl: 'redis://cache:6379',
      etsmToken: 'etsm',
      mdmToken: 'mdm',
      anafEnabled: true,
      logLevel: 'debug',
      worker: 'off',
      rateLimitAuthPerMinute: 5,
      rateLimitAuthPerAddressPerMinute: 50,
      rateLimitFailedAuthPerMinute: 20,
      loginHashConcurrency: 2,
      loginHashQueue: 0,
      rateLimitDataPerMinute: 600,
      heartbeatStaleMinutes: 10080,
      workerMetricsPort: 9464,
      trustProxy: 2,
    });
  });

  it('When only NODE_ENV is set, Then it is the app env; APP_ENV wins over it', () => {
    expect(loadConfig({ NODE_ENV: 'production' })).to.include({ appEnv: 'production', production: true });
    expect(loadConfig({ NODE_ENV: 'production', APP_ENV: 'staging' })).to.include({ appEnv: 'staging', production: false });
  });

  it('When booleans are spelled true/1/yes or false/0/no in any case, Then they are read', () => {
    for (const raw of ['true', '1', 'yes', 'TRUE', 'Yes']) expect(loadConfig({ ANAF_ENABLED: raw }).anafEnabled, raw).to.equal(true);
    for (const raw of ['false', '0', 'no', 'FALSE', 'No']) expect(loadConfig({ ANAF_ENABLED: raw }).anafEnabled, raw).to.equal(false);
  });

  it('When TRUST_PROXY is true, false, a number or a list, Then it is passed on as Express reads it', () => {
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).to.equal(true);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).to.equal(false);
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).to.equal(1);
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy).to.equal('loopback, 10.0.0.0/8');
    expect(loadConfig({ TRUST_PROXY: '192.168.0.1/255.255.255.0,fd00::/8,uniquelocal' }).trustProxy).to.equal('192.168.0.1/255.255.255.0,fd00::/8,uniquelocal');
  });

  it('When REDIS_URL names a database by number, or none, Then it is taken', () => {
    for (const url of ['redis://cache:6379', 'redis://cache:6379/', 'redis://cache:6379/2', 'rediss://:pw@cache:6380/15']) expect(loadConfig({ REDIS_URL: url }).redisUrl, url).to.equal(url);
  });

  it('When APP_URL ends in slashes, Then they are removed', () => {
    expect(loadConfig({ APP_URL: 'https://api.example.com/' }).appUrl).to.equal('https://api.example.com');
    expect(loadConfig({ APP_URL: 'https://api.example.com/v1///' }).appUrl).to.equal('https://api.example.com/v1');
  });

  it('When the DATABASE_URL is sqlite::memory:, Then it is accepted', () => {
    expect(loadConfig({ DATABASE_URL: 'sqlite::memory:' }).databaseUrl).to.equal('sqlite::memory:');
  });

  it('When WEBHOOK_MAX_SUBSCRIPTIONS is set, Then it is the cap per company; 0 or more than 1000 stops the start', () => {
    expect(loadConfig({ WEBHOOK_MAX_SUBSCRIPTIONS: '3' }).webhookMaxSubscriptions).to.equal(3);
    expect(() => loadConfig({ WEBHOOK_MAX_SUBSCRIPTIONS: '0' })).to.throw(ConfigError, /^WEBHOOK_MAX_SUBSCRIPTIONS must be a whole number from 1 to 1000 \(got "0"\)$/);
    expect(() => loadConfig({ WEBHOOK_MAX_SUBSCRIPTIONS: '1001' })).to.throw(ConfigError, /^WEBHOOK_MAX_SUBSCRIPTIONS must be a whole number from 1 to 1000/);
  });

  describe('bad values', () => {
    const cases: Array<[string, string, RegExp]> = [
      ['PORT', 'abc', /^PORT must be a whole number from 0 to 65535 \(got "abc"\)$/],
      ['PORT', '70000', /^PORT must be a whole number from 0 to 65535 \(got "70000"\)$/],
      ['PORT', '-1', /^PORT must be a whole number/],
      ['PORT', '80.5', /^PORT must be a whole number/],
      ['DATABASE_URL', 'postgres://x', /^DATABASE_URL must be sqlite:<path>, sqlite::memory: or mysql:\/\/.+ \(got "postgres:\/\/x"\)$/],
      ['DATABASE_URL', 'sqlite:', /^DATABASE_URL must be/],
      // The password never shows in the line that refuses the URL.
      ['DATABASE_URL', 'mariadb://tpl:S3cretPw@db.internal:3306/tpl', /^DATABASE_URL must be sqlite:.* \(got "mariadb:\/\/tpl:\*\*\*@db\.internal:3306\/tpl"\)$/],
      ['DATABASE_URL', 'mysql://u:S3cretPw@localhost:notaport/db', /^DATABASE_URL is not a valid URL: .* \(got "mysql:\/\/u:\*\*\*@localhost:notaport\/db"\)$/],
      // A password with an unencoded # or / is hidden too (up to the last @).
      ['DATABASE_URL', 'mysql://u:S3c/ret#Pw@localhost/db', /^DATABASE_URL .* \(got "mysql:\/\/u:\*\*\*@localhost\/db"\)$/],
      ['REDIS_URL', 'redis://:Xy#9secretPw@127.0.0.1:6379', /^REDIS_URL is not a valid URL: redis:\/\/\[:password@\]host:port\[\/db\], .* \(got "redis:\/\/:\*\*\*@127\.0\.0\.1:6379"\)$/],
      ['REDIS_URL', '127.0.0.1:6379', /^REDIS_URL must start with redis:\/\/ or rediss:\/\/ \(got "127\.0\.0\.1:6379"\)$/],
      ['REDIS_URL', 'redis://:pw@host:abc', /^REDIS_URL is not a valid URL: .* \(got "redis:\/\/:\*\*\*@host:abc"\)$/],
      ['REDIS_URL', 'http://cache:6379', /^REDIS_URL must start with redis:\/\/ or rediss:\/\//],
      ['DATABASE_URL', 'mysql:///tpl', /^DATABASE_URL names no host: mysql:\/\/user:pass@host:port\/db \(got "mysql:\/\/\/tpl"\)$/],
      ['REDIS_URL', 'redis:///0', /^REDIS_URL names no host: redis:\/\/\[:password@\]host:port\[\/db\] \(got "redis:\/\/\/0"\)$/],
      ['TRUST_PROXY', 'maybe', /^TRUST_PROXY must be true, false, a number of hops, or a comma list .* \(got "maybe"\)$/],
      ['TRUST_PROXY', 'loopback, 10.0.0.0/33', /^TRUST_PROXY must be/],
      ['LOG_LEVEL', 'loud', /^LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent \(got "loud"\)$/],
      ['WORKER', 'maybe', /^WORKER must be one of in-process, off \(got "maybe"\)$/],
      ['ANAF_ENABLED', 'perhaps', /^ANAF_ENABLED must be true or false \(got "perhaps"\)$/],
      ['APP_URL', 'ftp://x', /^APP_URL must be an http\(s\) URL with a host and no spaces, such as https:\/\/api\.example\.com \(got "ftp:\/\/x"\)$/],
      ['APP_URL', 'http://exa mple.com/x y', /^APP_URL must be an http\(s\) URL with a host and no spaces/],
      ['APP_URL', 'https://api.example.com/x y', /^APP_URL must be an http\(s\) URL/],
      ['REDIS_URL', 'redis://127.0.0.1:6379/abc', /^REDIS_URL names a database that is not a number: redis:\/\/\[:password@\]host:port\[\/db\] \(got "redis:\/\/127\.0\.0\.1:6379\/abc"\)$/],
      ['APP_ENV', ' production', /^APP_ENV " production" would run without production behaviour/],
      ['APP_URL', 'localhost:3000', /^APP_URL must be an http\(s\) URL/],
      ['RATE_LIMIT_AUTH_PER_MINUTE', '0', /^RATE_LIMIT_AUTH_PER_MINUTE must be a whole number from 1 to 10000000 \(got "0"\)$/],
      ['RATE_LIMIT_DATA_PER_MINUTE', 'lots', /^RATE_LIMIT_DATA_PER_MINUTE must be a whole number/],
      ['RATE_LIMIT_FAILED_AUTH_PER_MINUTE', '0', /^RATE_LIMIT_FAILED_AUTH_PER_MINUTE must be a whole number from 1 to 10000000 \(got "0"\)$/],
      ['LOGIN_HASH_CONCURRENCY', '0', /^LOGIN_HASH_CONCURRENCY must be a whole number from 1 to 64 \(got "0"\)$/],
      ['HEARTBEAT_STALE_MINUTES', '10081', /^HEARTBEAT_STALE_MINUTES must be a whole number from 1 to 10080/],
      ['HTTP_HEADERS_TIMEOUT_MS', '40000', /^HTTP_HEADERS_TIMEOUT_MS must be a whole number from 100 to 30000 \(got "40000"\)$/],
      ['REDIS_PREFIX', 'my prefix', /^REDIS_PREFIX must be 1 to 64 letters, digits or \. _ : - \(got "my prefix"\)$/],
      ['WORKER_METRICS_PORT', 'http', /^WORKER_METRICS_PORT must be a whole number from 0 to 65535 \(got "http"\)$/],
      ['APP_ENV', 'prod', /^APP_ENV "prod" would run without production behaviour: write production \(in lower case\), or give another environment a name that does not start with prod$/],
      ['APP_ENV', 'Production', /^APP_ENV "Production" would run without production behaviour/],
      ['NODE_ENV', 'PRD', /^NODE_ENV "PRD" would run without production behaviour/],
      ['HTTP_KEEP_ALIVE_TIMEOUT_MS', '0', /^HTTP_KEEP_ALIVE_TIMEOUT_MS must be a whole number from 100 to 600000/],
    ];
    for (const [variable, value, message] of cases) {
      it(`When ${variable}=${value}, Then it throws a ConfigError naming ${variable}`, () => {
        let thrown: unknown;
        try {
          loadConfig({ [variable]: value });
        } catch (error) {
          thrown = error;
        }
        expect(thrown).to.be.instanceOf(ConfigError);
        expect((thrown as Error).message).to.match(message);
        expect((thrown as Error).message).not.to.include('\n');
      });
    }
  });

  it('When the configuration is loaded, Then it is frozen', () => {
    const config = loadConfig({});
    expect(Object.isFrozen(config)).to.equal(true);
    expect(() => {
      (config as { port: number }).port = 1;
    }).to.throw(TypeError);
    expect(config.port).to.equal(3000);
  });

  it('When loadConfig is called twice, Then each call reads the environment it is given', () => {
    expect(loadConfig({ PORT: '1234' }).port).to.equal(1234);
    expect(loadConfig({}).port).to.equal(3000);
  });
});
