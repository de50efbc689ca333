import { router } from '../core/trpc.ts';
import { whoami } from './whoami.ts';
import { verbruik } from './verbruik.ts';
import { beheerToegang } from './beheer-toegang.ts';
import { adres } from './inzicht/adres.ts';
import { woz } from './inzicht/woz.ts';
import { energielabel } from './inzicht/energielabel.ts';
import { woningtype } from './inzicht/woningtype.ts';
import { invloeden } from './inzicht/invloeden.ts';
import { waarde } from './inzicht/waarde.ts';
import { webhooks } from './webhooks.ts';
import { appWebRouter } from './app/router.ts';

export const appRouter = router({
  whoami,
  verbruik,
  beheer: router({ toegang: beheerToegang }),
  inzicht: router({ waarde, adres, woz, energielabel, woningtype, invloeden }),
  webhooks,
  /** Session auth, no `meta.openapi`/`meta.mcp`: served at /trpc only. */
  app: appWebRouter,
});

export type AppRouter = typeof appRouter;
