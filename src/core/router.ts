/** The one router: every procedure of every gateway, assembled here and defined in src/procedures. */
import { router } from './trpc.ts';
import { whoami } from '../procedures/whoami.ts';

export const appRouter = router({
  whoami,
});

export type AppRouter = typeof appRouter;
