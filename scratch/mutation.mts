import { readFileSync } from 'node:fs';
import request from 'supertest';
import { buildApp } from '../test/helpers/harness.ts';
import { readDocument } from '../src/platform/openapi/document.ts';
const h = await buildApp();
await request(h.app).get('/api/partners?per_page=2').set('Authorization', 'Bearer x');
await request(h.app).post('/api/auth/token').send({ email: 'a@b.c', password: 'x' });
const file = readFileSync('openapi/openapi.json', 'utf8');
const now = JSON.stringify(readDocument(), null, 2) + '\n';
console.log('equal:', file === now);
const a = file.split('\n'), b = now.split('\n');
for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) { console.log(i, a[i], '|', b[i]); break; }
process.exit(0);
