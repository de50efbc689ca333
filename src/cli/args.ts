import { InvalidArgumentError, type Command } from 'commander';
import { UUID_RE } from '../db/client.ts';
import { leesDatumIso } from '../domain/begrippen.ts';

export function geheelGetal(min: number, max: number) {
  return (v: string): number => {
    if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v)) || Number(v) < min) {
      throw new InvalidArgumentError(`verwacht een geheel getal >= ${min}`);
    }
    if (Number(v) > max) throw new InvalidArgumentError(`hoogstens ${max.toLocaleString('nl-NL')}`);
    return Number(v);
  };
}

export function heelGetalNietNul(v: string): number {
  if (!/^-?\d+$/.test(v) || !Number.isSafeInteger(Number(v)) || Number(v) === 0) {
    throw new InvalidArgumentError('verwacht een geheel getal, niet 0 (negatief om credits terug te nemen)');
  }
  return Number(v);
}

export function datum(v: string): string {
  if (!leesDatumIso(v)) {
    throw new InvalidArgumentError('verwacht een bestaande datum als JJJJ-MM-DD');
  }
  return v;
}

export function naam(v: string): string {
  const t = v.trim();
  if (!t) throw new InvalidArgumentError('vul een naam in (ten minste één teken)');
  return t;
}

export function uuid(v: string): string {
  if (!UUID_RE.test(v)) {
    throw new InvalidArgumentError('verwacht een account-id (uuid)');
  }
  return v;
}

/** A subcommand of `ouder` on one account: the `<account_id>` most operator commands start with. */
export function opAccount(ouder: Command, naam: string, omschrijving: string): Command {
  return ouder.command(naam).argument('<account_id>', 'account-id (uuid)', uuid).description(omschrijving);
}
