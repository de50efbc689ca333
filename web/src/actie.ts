import { useState } from 'preact/hooks';
import { foutTekst } from './api.ts';

/**
 * A page's state-changing actions: one at a time (`bezig` disables the buttons), the server's Dutch
 * message on failure, a status line on success, and the page's list read again afterwards either way.
 */
export function useActie(laad: () => Promise<unknown>) {
  const [bezig, setBezig] = useState(false);
  const [fout, setFout] = useState('');
  const [status, setStatus] = useState('');

  async function actie(fn: () => Promise<unknown>) {
    setBezig(true);
    setFout('');
    setStatus('');
    try {
      await fn();
    } catch (err) {
      setFout(foutTekst(err));
    } finally {
      setBezig(false);
      await laad();
    }
  }

  return { bezig, fout, setFout, status, setStatus, actie };
}
