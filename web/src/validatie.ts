/**
 * The browser's own form messages ("Please fill out this field.") follow the browser's language, not
 * the page's: every invalid field gets a Dutch message instead, cleared as soon as it is edited.
 */
const getal = new Intl.NumberFormat('nl-NL');
/** A bound as the field shows it: a number nl-NL, a date dd-mm-jjjj. */
function grens(veld: HTMLInputElement, g: string): string {
  if (veld.type === 'date') return g.split('-').reverse().join('-');
  return veld.type === 'number' && g !== '' && !Number.isNaN(Number(g)) ? getal.format(Number(g)) : g;
}

function melding(veld: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement): string {
  const v = veld.validity;
  if (v.valueMissing) return veld instanceof HTMLSelectElement ? 'Kies een van de mogelijkheden.' : 'Vul dit veld in.';
  if (v.typeMismatch && veld.type === 'email') return 'Vul een geldig e-mailadres in, bijvoorbeeld naam@voorbeeld.nl.';
  if (v.typeMismatch && veld.type === 'url') return 'Vul een volledige URL in, beginnend met https://.';
  if (v.tooShort) return `Gebruik minstens ${(veld as HTMLInputElement).minLength} tekens (nu ${veld.value.length}).`;
  if (v.tooLong) return `Gebruik hoogstens ${(veld as HTMLInputElement).maxLength} tekens.`;
  const datum = veld.type === 'date';
  if (v.rangeUnderflow) return `Kies ${grens(veld as HTMLInputElement, (veld as HTMLInputElement).min)} of ${datum ? 'later' : 'meer'}.`;
  if (v.rangeOverflow) return `Kies ${grens(veld as HTMLInputElement, (veld as HTMLInputElement).max)} of ${datum ? 'eerder' : 'minder'}.`;
  if (v.stepMismatch) return 'Vul een geheel getal in.';
  if (v.badInput) return veld.type === 'date' ? 'Vul een geldige datum in.' : 'Vul een getal in.';
  if (v.patternMismatch) return veld.title || 'De invoer heeft niet de gevraagde vorm.';
  return 'Deze invoer klopt niet.';
}

type Veld = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
const isVeld = (e: EventTarget | null): e is Veld => e instanceof HTMLInputElement || e instanceof HTMLSelectElement || e instanceof HTMLTextAreaElement;

export function nederlandseValidatie(doc: Document): void {
  doc.addEventListener(
    'invalid',
    (e) => {
      if (!isVeld(e.target)) return;
      e.target.setCustomValidity('');
      if (!e.target.validity.valid) e.target.setCustomValidity(melding(e.target));
    },
    true,
  );
  const wis = (e: Event) => {
    if (isVeld(e.target)) e.target.setCustomValidity('');
  };
  doc.addEventListener('input', wis, true);
  doc.addEventListener('change', wis, true);
}
