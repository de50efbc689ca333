import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { FOUT_SOORTEN, foutVoorStatus, InsightFout, naarFout } from '../../src/core/errors.ts';

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
