import { createSocket } from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maakAccount } from '../src/domain/billing/tegoed.ts';
import { maakEndpoint } from '../src/domain/webhooks/beheer.ts';
import { controleerDoel, dnsResolver, type Resolver } from '../src/domain/webhooks/doeladres.ts';
import { dialect, useTestDatabase } from './support/db.ts';

/**
 * A DNS server that never answers, as a customer can point a webhook's host at: the address check must
 * end in bounded time without holding libuv's thread pool (where getaddrinfo runs) for the other checks.
 */
describe('webhook address checks against a DNS server that never answers', () => {
  const stil = createSocket('udp4');
  let poort = 0;
  beforeAll(async () => {
    await new Promise<void>((klaar) => stil.bind(0, '127.0.0.1', () => klaar()));
    poort = stil.address().port;
  });
  afterAll(() => stil.close());

  it('end on their own time limit, side by side, and leave the thread pool free', async () => {
    const resolver = dnsResolver({ servers: [`127.0.0.1:${poort}`], timeoutMs: 300, pogingen: 2 });
    const begin = Date.now();
    const checks = Array.from({ length: 8 }, (_, i) => controleerDoel(`https://a${i}.traag.example/hook`, { onveilig: false, resolver }).then(() => 'gevonden', (e: Error) => e.message));
    // Meanwhile a getaddrinfo lookup (thread pool) is not kept waiting.
    const t0 = Date.now();
    await lookup('localhost');
    expect(Date.now() - t0).toBeLessThan(1_000);
    const uitkomsten = await Promise.all(checks);
    expect(uitkomsten).toEqual(Array.from({ length: 8 }, (_, i) => `url: de host a${i}.traag.example is niet te vinden of wijst niet naar een openbaar adres; alleen openbare adressen zijn toegestaan.`));
    // Eight lookups of 2 × 300 ms each, side by side: nowhere near 8 × 600 ms in a row.
    expect(Date.now() - begin).toBeLessThan(3_000);
  });
});

describe('the webhook address check tells nothing about the server\'s own DNS', () => {
  it('a host name that resolves to a private address and one that does not resolve get the same refusal; an IP literal names its range', async () => {
    const resolver: Resolver = async (host) => {
      if (host === 'postgres.corp.internal') return [{ address: '10.20.30.40', family: 4 }];
      throw Object.assign(new Error(`queryA ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    };
    const weigering = (url: string) => controleerDoel(url, { onveilig: false, resolver }).then(() => 'aanvaard', (e: Error) => e.message);
    const intern = await weigering('https://postgres.corp.internal/hook');
    const onbekend = await weigering('https://bestaatniet.corp.internal/hook');
    expect(intern).not.toMatch(/10\.20|private|privé/);
    expect(intern.replace('postgres', 'X')).toBe(onbekend.replace('bestaatniet', 'X'));
    expect(await weigering('https://[::ffff:127.0.0.1]/')).toMatch(/niet-openbaar adres \(loopback\)/);
  });
});

describe(`a full account's webhook create (${dialect})`, () => {
  const db = useTestDatabase();

  it('is refused before the address is looked up: ten webhooks cost no more DNS lookups', async () => {
    const acc = await maakAccount(db.prisma, { naam: 'vol' });
    const opgezocht: string[] = [];
    const resolver: Resolver = async (host) => {
      opgezocht.push(host);
      return [{ address: '93.184.215.14', family: 4 }];
    };
    for (let i = 0; i < 10; i++) await maakEndpoint(db.prisma, { accountId: acc.id, url: `https://h${i}.example/hook`, events: ['saldo.laag'], now: new Date(), onveilig: false, resolver });
    expect(opgezocht).toHaveLength(10);
    await expect(maakEndpoint(db.prisma, { accountId: acc.id, url: 'https://elfde.example/hook', events: ['saldo.laag'], now: new Date(), onveilig: false, resolver })).rejects.toThrow(/al 10 webhooks/);
    expect(opgezocht).toHaveLength(10);
  });
});
