/** No answer tells whether an e-mail address has an account. */
import { z } from 'zod';
import { tekst } from '../../core/schema.ts';
import { InsightFout } from '../../core/errors.ts';
import { beeindigSessie, controleerLogin, csrfVoor, normaliseerEmail, startSessie } from '../../domain/gebruikers/gebruikers.ts';
import { registreerInlogPoging, vergeefInlogPoging } from '../../domain/gebruikers/inlogpogingen.ts';
import { MAX_WACHTWOORD } from '../../domain/gebruikers/wachtwoord.ts';
import { router } from '../../core/trpc.ts';
import { aangemeldProcedure, openWebProcedure, sessieProcedure } from '../../core/sessie.ts';

const ONJUIST = 'E-mailadres of wachtwoord klopt niet.';

function teVaak(seconden: number): InsightFout {
  return new InsightFout('te_veel_verzoeken', `Te veel mislukte aanmeldpogingen; probeer het over ${seconden} seconden opnieuw.`, {
    headers: { 'Retry-After': String(seconden) },
  });
}

const gebruikerInfo = z.object({ email: z.string(), account: z.string(), csrf: z.string(), verloopt_op: z.string() });

export const sessieRouter = router({
  aanmelden: openWebProcedure
    .input(z.strictObject({ email: tekst('email').min(1, 'vul je e-mailadres in').max(254), wachtwoord: z.string().min(1, 'vul je wachtwoord in').max(MAX_WACHTWOORD) }))
    .output(gebruikerInfo)
    .mutation(async ({ ctx, input }) => {
      const { db, now } = ctx.services;
      const email = normaliseerEmail(input.email);
      const poging = await registreerInlogPoging(db, email, ctx.web.ip, now());
      if (poging.geweigerd > 0) {
        await vergeefInlogPoging(db, poging); // a refused attempt checks no password and spends no quota
        throw teVaak(poging.geweigerd);
      }
      const user = await controleerLogin(db, email, input.wachtwoord);
      if (!user) {
        if (poging.laatsteKans > 0) throw teVaak(poging.laatsteKans);
        throw new InsightFout('ongeldige_sleutel', ONJUIST);
      }
      await vergeefInlogPoging(db, poging);
      const s = await startSessie(db, user.id, now());
      ctx.web.zetSessieCookie(s.token, s.verlooptOp);
      return { email: user.email, account: user.accountNaam, csrf: csrfVoor(s.token), verloopt_op: s.verlooptOp.toISOString() };
    }),

  /** A query: readable only by our own origin. */
  huidig: sessieProcedure.output(gebruikerInfo).query(({ ctx }) => {
    const s = ctx.sessie;
    return { email: s.email, account: s.accountNaam, csrf: csrfVoor(ctx.sessieToken), verloopt_op: s.verlooptOp.toISOString() };
  }),

  /** Never refused by the web-app limit. */
  afmelden: aangemeldProcedure.mutation(async ({ ctx }) => {
    await beeindigSessie(ctx.services.db, ctx.sessie.id);
    ctx.web.wisSessieCookie();
    return { afgemeld: true };
  }),
});
