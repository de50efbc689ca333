/** Served at /trpc alone; its type is what the front end's typed client imports. */
import { router } from '../../core/trpc.ts';
import { sessieRouter } from './sessie.ts';
import { sleutelsRouter } from './sleutels.ts';
import { tegoedRouter } from './tegoed.ts';
import { verbruikRouter } from './verbruik.ts';
import { webhooksRouter } from './webhooks.ts';

export const appWebRouter = router({
  sessie: sessieRouter,
  sleutels: sleutelsRouter,
  tegoed: tegoedRouter,
  verbruik: verbruikRouter,
  webhooks: webhooksRouter,
});

export type AppWebRouter = typeof appWebRouter;
