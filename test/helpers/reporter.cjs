// mocha's spec reporter, which also writes the run's counts to $TEST_STATS_FILE for the
// "N passed, N failed" line of `make test`.
const fs = require('node:fs');
const Mocha = require('mocha');

class StatsReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once('end', () => {
      const file = process.env.TEST_STATS_FILE;
      if (file) fs.writeFileSync(file, JSON.stringify(runner.stats));
    });
  }
}

module.exports = StatsReporter;
