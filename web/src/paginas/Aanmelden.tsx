import { useState } from 'preact/hooks';
import { api, foutTekst } from '../api.ts';
import type { Gebruiker } from '../App.tsx';

export function Aanmelden(props: { melding: string; bijAanmelding: (g: Gebruiker) => void }) {
  const [email, setEmail] = useState('');
  const [wachtwoord, setWachtwoord] = useState('');
  const [fout, setFout] = useState(props.melding);
  const [bezig, setBezig] = useState(false);

  async function verstuur(e: Event) {
    e.preventDefault();
    setBezig(true);
    setFout('');
    try {
      props.bijAanmelding(await api.sessie.aanmelden.mutate({ email, wachtwoord }));
    } catch (err) {
      setFout(foutTekst(err));
      setWachtwoord('');
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
        <input id="wachtwoord" name="wachtwoord" type="password" autoComplete="current-password" required value={wachtwoord} onInput={(e) => setWachtwoord(e.currentTarget.value)} />
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
