import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { createTestDatabase, dialect, type TestDatabase } from './support/db.ts';
import { startServer, type ServerProces } from './support/server.ts';

/** What a new customer or operator meets first: the root path, the tab icon, the start-up log. */
describe(`first impression (${dialect})`, { timeout: 120_000 }, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  it('GET / names the entry points in Dutch; /favicon.ico is no 404', async () => {
    const root = await t.app.inject({ method: 'GET', url: '/' });
    expect(root.statusCode).toBe(200);
    expect(root.json()).toMatchObject({ naam: 'Insight API', documentatie: '/docs', openapi: '/api/v1/openapi.json', mcp: '/mcp', app: '/app' });
    const icoon = await t.app.inject({ method: 'GET', url: '/favicon.ico' });
    expect(icoon.statusCode).toBe(204);
    expect(icoon.body).toBe('');
  });

  it('the OpenAPI document says what a 200 is in Dutch, not the generator\'s "Successful response"', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as { paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>> };
    const beschrijvingen = Object.values(doc.paths).flatMap((p) => Object.values(p).map((op) => op.responses['200']?.description));
    expect(beschrijvingen.length).toBeGreaterThan(5);
    expect(beschrijvingen.filter((d) => d === 'Successful response')).toEqual([]);
  });
});

describe(`insight serve with WEBHOOK_ALLOW_INSECURE (${dialect})`, { timeout: 120_000 }, () => {
  let dataDir: string;
  let pg: TestDatabase | null = null;
  let server: ServerProces | undefined;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'insight-onveilig-'));
    if (dialect === 'postgres') pg = await createTestDatabase();
  });
  afterAll(async () => {
    await server?.stop();
    await pg?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('warns at start-up that webhooks may go to http:// and private addresses', async () => {
    server = await startServer(pg?.url ?? '', { DATA_DIR: dataDir, WEBHOOK_ALLOW_INSECURE: 'true' });
    expect(server.uitvoer()).toMatch(/WEBHOOK_ALLOW_INSECURE=true: webhooks mogen naar http:\/\/ .*nooit in productie/);
  });
});
