import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FOUT_SOORTEN, foutVoorStatus, InsightFout, naarFout, zodNaarFout } from '../../src/core/errors.ts';

/** The error table: one source for status, message and headers; one translation per error. */
describe('error table', () => {
  it('a 400 that is not about JSON answers with the invalid-input message', () => {
    expect(naarFout(new TRPCError({ code: 'BAD_REQUEST' }))).toMatchObject({ status: 400, fout: FOUT_SOORTEN.ongeldige_invoer.fout });
    expect(foutVoorStatus(400)).toBe(FOUT_SOORTEN.ongeldige_invoer.fout);
    expect(naarFout(new TRPCError({ code: 'PARSE_ERROR' }))).toMatchObject({ status: 400, fout: FOUT_SOORTEN.ongeldige_json.fout });
  });

  it('headers that never vary come from the table', () => {
    expect(new InsightFout('ongeldige_sleutel').headers).toEqual({ 'WWW-Authenticate': 'Bearer' });
    expect(naarFout(new TRPCError({ code: 'UNAUTHORIZED' })).headers).toEqual({ 'WWW-Authenticate': 'Bearer' });
  });

  it('translates an error once, whoever asks', () => {
    const e = new InsightFout('conflict', 'Al gebruikt.');
    expect(naarFout(e)).toBe(naarFout(e));
    expect(naarFout(new Error('geheim'))).toMatchObject({ status: 500, fout: FOUT_SOORTEN.intern.fout, intern: true });
  });
});

describe('schema refusals in Dutch', () => {
  const schema = z.strictObject({ url: z.string(), events: z.array(z.string()).max(10), limiet: z.string().optional() });
  const fout = (v: unknown) => zodNaarFout(schema.safeParse(v).error as z.ZodError);

  it('a missing field is missing; a field of the wrong type says what came instead', () => {
    expect(fout({ events: [] })).toBe('Ongeldige invoer: url: verplicht veld ontbreekt.');
    // A repeated query parameter arrives as a list; a number is not a missing url.
    expect(fout({ url: 'x', events: [], limiet: ['1', '2'] })).toBe('Ongeldige invoer: limiet: verwacht tekst, kreeg lijst.');
    expect(fout({ url: 123, events: [] })).toBe('Ongeldige invoer: url: verwacht tekst, kreeg getal.');
  });

  it('a field of the wrong type is one fault, not also a length', () => {
    expect(fout({ url: 'x', events: 'inzicht.voltooid' })).toBe('Ongeldige invoer: events: verwacht lijst, kreeg tekst.');
  });
});
