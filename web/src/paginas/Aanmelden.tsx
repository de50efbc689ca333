import { useEffect, useRef, useState } from 'preact/hooks';
import { api, foutTekst } from '../api.ts';
import type { Gebruiker } from '../App.tsx';

export function Aanmelden(props: { melding: string; bijAanmelding: (g: Gebruiker) => void }) {
  const [email, setEmail] = useState('');
  const [wachtwoord, setWachtwoord] = useState('');
  const [fout, setFout] = useState(props.melding);
  const [bezig, setBezig] = useState(false);
  const wachtwoordVeld = useRef<HTMLInputElement>(null);
  useEffect(() => setFout(props.melding), [props.melding]);

  // Checked here, so the message names the fields as the page does (the server's names its input keys).
  function onvolledig(form: HTMLFormElement): string {
    const veld = form.elements.namedItem('email') as HTMLInputElement;
    if (!email.trim()) return 'Vul je e-mailadres in.';
    if (veld.validity.typeMismatch) return 'Vul een geldig e-mailadres in, bijvoorbeeld naam@voorbeeld.nl.';
    return wachtwoord ? '' : 'Vul je wachtwoord in.';
  }

  async function verstuur(e: Event) {
    e.preventDefault();
    const melding = onvolledig(e.currentTarget as HTMLFormElement);
    if (melding) {
      setFout(melding);
      return;
    }
    setBezig(true);
    setFout('');
    try {
      props.bijAanmelding(await api.sessie.aanmelden.mutate({ email: email.trim(), wachtwoord }));
    } catch (err) {
      setFout(foutTekst(err));
      setWachtwoord('');
      // The disabled button lost the focus; the password is what the next try needs.
      setTimeout(() => wachtwoordVeld.current?.focus());
    } finally {
      setBezig(false);
    }
  }

  return (
    <main id="inhoud" class="aanmelden">
      <h1 tabIndex={-1}>Aanmelden bij Insight</h1>
      <p>Meld je aan om je API-sleutels, tegoed en verbruik te beheren.</p>
      <form onSubmit={verstuur} noValidate>
        <label for="email">E-mailadres</label>
        <input id="email" name="email" type="email" autoComplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        <label for="wachtwoord">Wachtwoord</label>
        <input id="wachtwoord" ref={wachtwoordVeld} name="wachtwoord" type="password" autoComplete="current-password" required value={wachtwoord} onInput={(e) => setWachtwoord(e.currentTarget.value)} />
        <div role="alert" class={fout ? 'fout' : 'leeg'}>
          {fout}
        </div>
        <button type="submit" disabled={bezig}>
          {bezig ? 'Bezig…' : 'Aanmelden'}
        </button>
      </form>
      <p class="klein">
        Geen account of wachtwoord vergeten? Neem contact op met de beheerder. De <a href="/docs">API-documentatie</a> is openbaar.
      </p>
    </main>
  );
}
