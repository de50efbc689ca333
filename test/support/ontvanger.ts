/**
 * A real webhook receiver on loopback for the webhook tests: records every request (headers, raw body,
 * arrival time) per path and answers by the path's last segment (/<naam>/ok ...): /ok 204, /weg 410, /verwijs 302, /fout 500, /hangt never.
 * `uit()`/`aan()` makes /wisselend refuse with 503 and then accept, like a receiver that was down.
 */
import http from 'node:http';

export interface Ontvangen {
  pad: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  op: number;
}

export interface Ontvanger {
  base: string;
  ontvangen: Ontvangen[];
  van(pad: string): Ontvangen[];
  /** The most concurrent requests in flight for one webhook-id seen so far. */
  maxGelijktijdigPerId: number;
  /** The most concurrent requests in flight per path seen so far. */
  maxGelijktijdigPerPad: Map<string, number>;
  wisselendAan: boolean;
  /** Wait until `n` requests arrived on `pad` (or throw after ms). */
  wacht(pad: string, n: number, ms?: number): Promise<Ontvangen[]>;
  sluit(): Promise<void>;
}

export async function startOntvanger(opts: { vertragingMs?: number } = {}): Promise<Ontvanger> {
  const ontvangen: Ontvangen[] = [];
  const lopend = new Map<string, number>();
  const hangend = new Set<http.ServerResponse>();
  const o: Ontvanger = {
    base: '',
    ontvangen,
    van: (pad) => ontvangen.filter((x) => x.pad === pad),
    maxGelijktijdigPerId: 0,
    maxGelijktijdigPerPad: new Map(),
    wisselendAan: false,
    async wacht(pad, n, ms = 10_000) {
      const tot = Date.now() + ms;
      while (o.van(pad).length < n) {
        if (Date.now() > tot) throw new Error(`ontvanger: ${o.van(pad).length} van ${n} op ${pad}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      return o.van(pad);
    },
    async sluit() {
      for (const r of hangend) r.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
  const server = http.createServer((req, res) => {
    const delen: Buffer[] = [];
    const id = String(req.headers['webhook-id'] ?? '');
    const p = (req.url ?? '/').split('?')[0];
    lopend.set(id, (lopend.get(id) ?? 0) + 1);
    lopend.set(p, (lopend.get(p) ?? 0) + 1);
    o.maxGelijktijdigPerId = Math.max(o.maxGelijktijdigPerId, lopend.get(id) ?? 0);
    o.maxGelijktijdigPerPad.set(p, Math.max(o.maxGelijktijdigPerPad.get(p) ?? 0, lopend.get(p) ?? 0));
    let gesloten = false;
    const klaar = () => {
      if (gesloten) return;
      gesloten = true;
      lopend.set(id, (lopend.get(id) ?? 1) - 1);
      lopend.set(p, (lopend.get(p) ?? 1) - 1);
    };
    req.on('data', (c: Buffer) => delen.push(c));
    req.on('end', () => {
      const pad = (req.url ?? '/').split('?')[0];
      ontvangen.push({ pad, headers: req.headers, body: Buffer.concat(delen).toString('utf8'), op: Date.now() });
      const antwoord = (status: number, headers: Record<string, string> = {}) => {
        const doe = () => {
          klaar();
          res.writeHead(status, headers).end();
        };
        if (opts.vertragingMs) setTimeout(doe, opts.vertragingMs);
        else doe();
      };
      const soort = `/${pad.split('/').pop()}`;
      if (soort === '/hangt') {
        hangend.add(res);
        res.on('close', klaar);
        return;
      }
      if (soort === '/weg') return antwoord(410);
      if (soort === '/verwijs') return antwoord(302, { location: `${o.base}/ok` });
      if (soort === '/fout') return antwoord(500);
      if (soort === '/wisselend') return antwoord(o.wisselendAan ? 200 : 503);
      return antwoord(204);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  o.base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return o;
}
