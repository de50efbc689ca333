/** The one router: every procedure of every gateway, assembled here and defined in src/procedures. */
import { router } from './trpc.ts';
import { whoami } from '../procedures/whoami.ts';
import { verbruik } from '../procedures/verbruik.ts';
import { mcpToegang } from '../procedures/mcp/toegang.ts';
import { beheerToegang } from '../procedures/beheer-toegang.ts';
import { adres } from '../procedures/inzicht/adres.ts';
import { woz } from '../procedures/inzicht/woz.ts';
import { energielabel } from '../procedures/inzicht/energielabel.ts';
import { woningtype } from '../procedures/inzicht/woningtype.ts';
import { invloeden } from '../procedures/inzicht/invloeden.ts';
import { waarde } from '../procedures/inzicht/waarde.ts';

export const appRouter = router({
  whoami,
  verbruik,
  mcp: router({ toegang: mcpToegang }),
  beheer: router({ toegang: beheerToegang }),
  inzicht: router({ waarde, adres, woz, energielabel, woningtype, invloeden }),
});

export type AppRouter = typeof appRouter;
