/**
 * The patched REST adapter (patches/trpc-to-openapi+3.3.0.patch) hands createContext an info whose signal is
 * made on first read, by a getter on its prototype: a getter in an object literal per call made V8 put an
 * accessor pair in the old generation for every request, which kept each request's objects alive through
 * the minor collections (docs/landelijk.md, session 19).
 */
import { initTRPC } from '@trpc/server';
import Fastify from 'fastify';
import { fastifyTRPCOpenApiPlugin, type OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

const infos: Record<string, unknown>[] = [];
const t = initTRPC.context<Record<string, never>>().meta<OpenApiMeta>().create();
const router = t.router({
  ping: t.procedure.meta({ openapi: { method: 'GET', path: '/ping' } }).input(z.void()).output(z.object({ ok: z.boolean() })).query(() => ({ ok: true })),
});
const app = Fastify();
await app.register(fastifyTRPCOpenApiPlugin, {
  router,
  basePath: '/',
  createContext: ({ info }: { info: object }) => {
    infos.push(info as Record<string, unknown>);
    return {};
  },
});
afterAll(() => app.close());

describe('the REST adapter’s call info', () => {
  it('has no accessor of its own; its signal is made on first read, once', async () => {
    const r = await app.inject({ method: 'GET', url: '/ping' });
    expect(r.json()).toEqual({ ok: true });
    const info = infos.at(-1)!;
    expect(Object.getOwnPropertyDescriptor(info, 'signal')).toBeUndefined();
    expect(Object.getOwnPropertyNames(info).every((k) => !Object.getOwnPropertyDescriptor(info, k)!.get)).toBe(true);
    expect(typeof Object.getOwnPropertyDescriptor(Object.getPrototypeOf(info), 'signal')?.get).toBe('function');
    const signal = info.signal as AbortSignal;
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(info.signal).toBe(signal);
    expect(info).toMatchObject({ isBatchCall: false, type: 'query', calls: [] });
  });
});
