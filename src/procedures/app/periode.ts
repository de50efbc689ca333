/** The period input of the web app's filters: inclusive calendar days, at most 366 days. */
import { z } from 'zod';
import { MAX_PERIODE_DAGEN } from '../../domain/billing/periode.ts';

const DAG = z
  .string()
  .regex(/^(19|[2-9]\d)\d{2}-\d{2}-\d{2}$/, 'verwacht een datum als JJJJ-MM-DD, vanaf 1900')
  .refine((v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v), 'geen bestaande datum');

export const periodeSchema = z
  .strictObject({ van: DAG, tot: DAG })
  .refine((p) => p.van <= p.tot, { message: 'van moet op of voor tot liggen', path: ['van'] })
  .refine((p) => (Date.parse(p.tot) - Date.parse(p.van)) / 86_400_000 < MAX_PERIODE_DAGEN, { message: `hoogstens ${MAX_PERIODE_DAGEN} dagen`, path: ['tot'] });
