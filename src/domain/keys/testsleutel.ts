/**
 * What a test key (`pct_test_`) may ask for: the synthetic demo town only. Its postcodes use the letter
 * pairs SA, SD and SS, which PostNL never issues (defined in src/domain/register/demo/opzet.ts), so the postcode
 * alone tells a demo address from a real one, before any work and without a database read.
 * test/testsleutels.test.ts checks every generated demo address against this list.
 */
import { DEMO_ADRESSEN } from '../register/demo/index.ts';

export { DEMO_LETTERPAREN, isDemoPostcode } from '../register/demo/opzet.ts';

const voorbeeld = DEMO_ADRESSEN.find((a) => a.geval === 'waardering') ?? DEMO_ADRESSEN[0];

export const BUITEN_DEMO_FOUT =
  'Een testsleutel kent alleen de adressen van de synthetische demogemeente Fictiedal (Verzonnenveen, Nergenshuizen) (postcodes met de letters SA, SD of SS, ' +
  `bijvoorbeeld ${voorbeeld.postcode} huisnummer ${voorbeeld.huisnummer}). De demo-adressen staan in de documentatie op /docs, ` +
  'in de voorbeelden bij elke opvraging. Gebruik een live sleutel voor echte adressen.';
