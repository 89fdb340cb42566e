// mocha's spec reporter, which also writes the run's counts and the titles of its failed tests to
// $TEST_STATS_FILE for the closing lines of `make test` (a CI log is often read from its end).
const fs = require('node:fs');
const Mocha = require('mocha');

class StatsReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const failed = [];
    runner.on('fail', (test, error) => failed.push(`${test.fullTitle()}: ${String(error?.message ?? error).split('\n')[0]}`));
    runner.once('end', () => {
      const file = process.env.TEST_STATS_FILE;
      if (file) fs.writeFileSync(file, JSON.stringify({ ...runner.stats, failed }));
    });
  }
}

module.exports = StatsReporter;
