/** The web app's internal router at /trpc; its type is what the front end's typed client imports. */
import { webRouter } from './trpc.ts';
import { sessieRouter } from './sessie.ts';
import { sleutelsRouter } from './sleutels.ts';
import { tegoedRouter } from './tegoed.ts';
import { verbruikRouter } from './verbruik.ts';

export const appWebRouter = webRouter({
  sessie: sessieRouter,
  sleutels: sleutelsRouter,
  tegoed: tegoedRouter,
  verbruik: verbruikRouter,
});

export type AppWebRouter = typeof appWebRouter;
