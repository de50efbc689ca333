import { afterEach, describe, expect, it, vi } from 'vitest';
import { dagenTerug, vandaag } from '../../web/src/opmaak.ts';

/** The web app's period helpers count calendar days in Europe/Amsterdam. */
describe('web/src/opmaak.ts dagenTerug', () => {
  afterEach(() => vi.useRealTimers());

  it.each([
    // Just after midnight, after the spring clock change (29 March 2026): 29 days back is 13 March, not 12.
    ['2026-04-10T22:30:00Z', 29, '2026-04-11', '2026-03-13'],
    // After the autumn change (25 October 2026), late in the evening.
    ['2026-11-05T22:59:00Z', 29, '2026-11-05', '2026-10-07'],
    ['2026-03-01T10:00:00Z', 1, '2026-03-01', '2026-02-28'],
    ['2028-03-01T10:00:00Z', 1, '2028-03-01', '2028-02-29'],
    ['2027-01-01T00:30:00Z', 1, '2027-01-01', '2026-12-31'],
    ['2026-04-11T12:00:00Z', 0, '2026-04-11', '2026-04-11'],
  ])('at %s, %i days back from %s is %s', (nu, n, dag, verwacht) => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(nu));
    expect(vandaag()).toBe(dag);
    expect(dagenTerug(n)).toBe(verwacht);
  });
});
