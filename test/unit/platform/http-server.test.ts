/** createHttpServer: requests and responses born with the Express app's prototypes. */
import { expect } from 'chai';
import express, { type Express } from 'express';
import request from 'supertest';
import { createHttpServer } from '../../../src/platform/http/http-server.js';

/** Counts the prototype switches Express makes while `work` runs (a switch to the prototype already in place is none). */
async function prototypeSwitches(work: () => Promise<unknown>): Promise<number> {
  const original = Object.setPrototypeOf;
  let switches = 0;
  Object.setPrototypeOf = (target: unknown, proto: object | null) => {
    if (Object.getPrototypeOf(target) !== proto) switches++;
    return original(target, proto);
  };
  try {
    await work();
  } finally {
    Object.setPrototypeOf = original;
  }
  return switches;
}

function echoApp(): Express {
  const app = express();
  app.set('trust proxy', true);
  app.get('/echo', (req, res) => {
    res.status(201).set('X-Seen', String(req.app === app && res.app === app)).json({ query: req.query, header: req.get('X-Probe'), ip: req.ip });
  });
  return app;
}

describe('createHttpServer', () => {
  it('When it serves a request, Then Express finds the app prototypes in place and switches none', async () => {
    const server = createHttpServer(echoApp());
    const switches = await prototypeSwitches(() => request(server).get('/echo').expect(201));
    expect(switches).to.equal(0);
  });

  it('When the same app is served by a plain node:http server, Then Express switches both prototypes (what the server avoids)', async () => {
    const app = echoApp();
    createHttpServer(app);
    const switches = await prototypeSwitches(() => request(app).get('/echo').expect(201));
    expect(switches).to.equal(2);
  });

  it("When a handler uses Express's request and response methods, Then they work as on Express's own objects", async () => {
    const app = echoApp();
    for (const served of [createHttpServer(app), createHttpServer(app), app]) {
      const res = await request(served).get('/echo?a=1&b=two').set('X-Probe', 'probe').set('X-Forwarded-For', '203.0.113.7').expect(201);
      expect(res.headers['x-seen']).to.equal('true');
      expect(res.headers['content-type']).to.match(/^application\/json/);
      expect(res.body).to.deep.equal({ query: { a: '1', b: 'two' }, header: 'probe', ip: '203.0.113.7' });
    }
  });

  it('When two apps are served, Then each request carries its own app', async () => {
    const [first, second] = [echoApp(), echoApp()];
    await request(createHttpServer(first)).get('/echo').expect(201).expect('X-Seen', 'true');
    await request(createHttpServer(second)).get('/echo').expect(201).expect('X-Seen', 'true');
  });
});
