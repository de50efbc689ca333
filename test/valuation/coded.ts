/** A held sale of a fitted core coded as the subject of a valuation (for tests that call `estimate` or `locationStat` directly). */
import { subjectAttributes } from '../../src/domain/valuation/comparables.ts';
import type { CodedSubject } from '../../src/domain/valuation/comparables.ts';
import type { FittedCore } from '../../src/domain/valuation/core.ts';

export function codedRow(core: FittedCore, row: number, extra: Partial<CodedSubject> = {}): CodedSubject {
  const t = core.table;
  return {
    ...subjectAttributes(core.effects[t.segment[row]], t.logOpp[row], t.logPerceel[row], t.bouwjaar[row], t.type[row], t.label[row]),
    x: t.x[row],
    y: t.y[row],
    segment: t.segment[row],
    exclude: null,
    excludeObject: t.object[row],
    wozDeflated: NaN,
    ...extra,
  };
}
