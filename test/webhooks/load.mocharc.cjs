// The webhook load test alone, with the options of every run (.mocharc.json): test/run.sh runs it
// in a process of its own. A spec given on the command line would be added to the config's, not
// replace it.
module.exports = { ...require('../../.mocharc.json'), spec: ['test/webhooks/load.test.ts'] };
