import { useRef, useState } from 'preact/hooks';
import { foutTekst, is401 } from './api.ts';

/** Focus on an element that may not take it by itself (a heading, a status line). */
export function zetFocus(el: HTMLElement | null | undefined): void {
  if (!el) return;
  if (!el.matches('a[href], button, input, select, textarea, [tabindex]')) el.tabIndex = -1;
  el.focus();
}

/**
 * A page's state-changing actions: one at a time (`bezig` disables the buttons), the server's Dutch
 * message on failure, a status line on success, and the page's list read again afterwards either way.
 * Disabling the pressed button drops the keyboard focus: afterwards it goes back to that button, or,
 * when the action removed it, to the message (`foutRef`) or the status line (`statusRef`).
 */
export function useActie(laad: () => Promise<unknown>) {
  const [bezig, setBezig] = useState(false);
  const [fout, setFout] = useState('');
  const [status, setStatus] = useState('');
  const foutRef = useRef<HTMLParagraphElement>(null);
  const statusRef = useRef<HTMLParagraphElement>(null);

  async function actie(fn: () => Promise<unknown>) {
    const knop = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null;
    setBezig(true);
    setFout('');
    setStatus('');
    try {
      await fn();
    } catch (err) {
      setFout(foutTekst(err, true));
      if (is401(err)) return;
    } finally {
      setBezig(false);
    }
    await laad();
    setTimeout(() => {
      const nu = document.activeElement;
      if (nu && nu !== document.body) return;
      if (knop?.isConnected && !(knop as HTMLButtonElement).disabled) knop.focus();
      else zetFocus(foutRef.current ?? statusRef.current);
    });
  }

  return { bezig, fout, setFout, status, setStatus, actie, foutRef, statusRef };
}
