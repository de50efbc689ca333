/**
 * The browser's own form messages ("Please fill out this field.") follow the browser's language, not
 * the page's: every invalid field gets a Dutch message instead, cleared as soon as it is edited.
 */
function melding(veld: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement): string {
  const v = veld.validity;
  if (v.valueMissing) return veld instanceof HTMLSelectElement ? 'Kies een van de mogelijkheden.' : 'Vul dit veld in.';
  if (v.typeMismatch && veld.type === 'email') return 'Vul een geldig e-mailadres in, bijvoorbeeld naam@voorbeeld.nl.';
  if (v.typeMismatch && veld.type === 'url') return 'Vul een volledige URL in, beginnend met https://.';
  if (v.tooShort) return `Gebruik minstens ${(veld as HTMLInputElement).minLength} tekens (nu ${veld.value.length}).`;
  if (v.tooLong) return `Gebruik hoogstens ${(veld as HTMLInputElement).maxLength} tekens.`;
  if (v.rangeUnderflow) return `Kies ${(veld as HTMLInputElement).min} of later/meer.`;
  if (v.rangeOverflow) return `Kies ${(veld as HTMLInputElement).max} of eerder/minder.`;
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
