/**
 * The database client's own read timeout (src/db/client.ts, TijdslimietClient): pg's query is stubbed,
 * so no server is needed; the fault suite covers a real silent host (test/faults/stille-database.test.ts).
 */
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TijdslimietClient } from '../../src/db/client.ts';

type Terug = (err: unknown, res?: unknown) => void;

describe('TijdslimietClient: the read timeout', () => {
  let terugVanPg: Terug | undefined;
  let gooi: Error | undefined;
  const einden = vi.fn(() => Promise.resolve());
  beforeEach(() => {
    vi.useFakeTimers();
    terugVanPg = undefined;
    gooi = undefined;
    einden.mockClear();
    vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      if (gooi) throw gooi;
      terugVanPg = (args.findLast((a) => typeof a === 'function') ?? (args[0] as { callback?: Terug } | undefined)?.callback) as Terug | undefined;
      return undefined as never;
    } as never);
    vi.spyOn(pg.Client.prototype, 'end').mockImplementation(einden as never);
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  it('a statement unanswered past the limit: its callback once with "Query read timeout", the connection ended, a late answer dropped', () => {
    const client = new TijdslimietClient({ leestijdMs: 1000 });
    const terug = vi.fn();
    client.query({ text: 'SELECT 1' }, terug);
    vi.advanceTimersByTime(999);
    expect(terug).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(terug).toHaveBeenCalledTimes(1);
    expect((terug.mock.calls[0][0] as Error).message).toBe('Query read timeout');
    expect(einden).toHaveBeenCalledTimes(1);
    terugVanPg?.(null, { rows: [] });
    expect(terug).toHaveBeenCalledTimes(1);
  });

  it('an answer in time passes through and stops the timer', () => {
    const client = new TijdslimietClient({ leestijdMs: 1000 });
    const terug = vi.fn();
    client.query('SELECT $1', [1], terug);
    terugVanPg?.(null, { rows: [{ a: 1 }] });
    expect(terug).toHaveBeenCalledWith(null, { rows: [{ a: 1 }] });
    expect(vi.getTimerCount()).toBe(0);
    expect(einden).not.toHaveBeenCalled();
  });

  it('without a callback a promise: resolved with the answer, rejected with "Query read timeout" past the limit', async () => {
    const client = new TijdslimietClient({ leestijdMs: 1000 });
    const goed = client.query({ text: 'SELECT 1', rowMode: 'array' });
    terugVanPg?.(null, { rows: [[1]] });
    await expect(goed).resolves.toEqual({ rows: [[1]] });
    const traag = client.query('SELECT pg_sleep(60)');
    vi.advanceTimersByTime(1000);
    await expect(traag).rejects.toThrow('Query read timeout');
    expect(einden).toHaveBeenCalledTimes(1);
  });

  it("the callback as the config's property (pg takes that form too): kept, answered once, in time or not", () => {
    const client = new TijdslimietClient({ leestijdMs: 1000 });
    const terug = vi.fn();
    const config = { text: 'SELECT 1', callback: terug };
    expect(client.query(config)).toBeUndefined();
    expect(config.callback).toBe(terug);
    terugVanPg?.(null, { rows: [] });
    expect(terug).toHaveBeenCalledWith(null, { rows: [] });
    expect(vi.getTimerCount()).toBe(0);
    const laat = vi.fn();
    client.query({ text: 'SELECT 2', callback: laat });
    vi.advanceTimersByTime(1000);
    expect(laat).toHaveBeenCalledTimes(1);
    expect((laat.mock.calls[0][0] as Error).message).toBe('Query read timeout');
  });

  it('a query pg refuses at once throws at once and leaves no timer to answer later', () => {
    const client = new TijdslimietClient({ leestijdMs: 1000 });
    gooi = new TypeError('Client was passed a null or undefined query');
    const terug = vi.fn();
    expect(() => client.query({ text: 'SELECT 1' }, terug)).toThrow(TypeError);
    expect(() => client.query({ text: 'SELECT 1' })).toThrow(TypeError);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(5000);
    expect(terug).not.toHaveBeenCalled();
  });

  it('a submittable (COPY, a cursor), a null query and a client without a limit go to pg untouched', () => {
    const zonder = new TijdslimietClient();
    const terug = vi.fn();
    zonder.query({ text: 'SELECT 1' }, terug);
    expect(terugVanPg).toBe(terug);
    const client = new TijdslimietClient({ leestijdMs: 1000 });
    const submittable = { submit: () => {} };
    client.query(submittable);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a pool hands the limit to every client it makes', () => {
    const pool = new pg.Pool({ Client: TijdslimietClient, leestijdMs: 1234 } as pg.PoolConfig);
    expect((pool as any).options.leestijdMs).toBe(1234);
    const client = new TijdslimietClient((pool as any).options);
    expect((client as any).leestijdMs).toBe(1234);
  });
});
