/**
 * Errors Node's HTTP server raises before Fastify sees a request, answered like every other error
 * (`{"fout"}`) instead of Fastify's `{"error","message"}`, or nothing; then the connection closes.
 * The path may be unknown, so each says nothing was charged, as every /api/v1 and /mcp answer does.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { stuurFout } from './fout-antwoord.ts';
import { NIETS_GEFACTUREERD } from './kosten-headers.ts';

const KOPPEN = { 'Content-Type': 'application/json; charset=utf-8', Connection: 'close', 'X-Content-Type-Options': 'nosniff', ...NIETS_GEFACTUREERD };

function rauwAntwoord(status: number, fout: string): string {
  const body = JSON.stringify({ fout });
  const koppen = Object.entries({ ...KOPPEN, 'Content-Length': Buffer.byteLength(body) }).map(([k, v]) => `${k}: ${v}\r\n`);
  return `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n${koppen.join('')}\r\n${body}`;
}

function antwoordVoor(code: string | undefined): { status: number; fout: string } {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, fout: 'Het verzoek kwam niet op tijd binnen: de verbinding wordt gesloten.' };
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, fout: 'De headers van het verzoek zijn te groot.' };
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_INVALID_TRANSFER_ENCODING':
      return { status: 400, fout: 'De lengte van de body is ongeldig: stuur één geldige Content-Length of Transfer-Encoding: chunked, niet beide.' };
    default:
      return { status: 400, fout: 'Het HTTP-verzoek is ongeldig en kan niet worden gelezen.' };
  }
}

export function httpParserFout(this: { log: FastifyBaseLogger }, err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, fout } = antwoordVoor(err.code);
  this.log.debug({ code: err.code, status }, 'HTTP-verzoek geweigerd door de parser');
  if (socket.writable) socket.write(rauwAntwoord(status, fout));
  socket.destroy();
}

/** Node drops a CONNECT without an answer unless someone listens. */
export function weigerConnect(_req: IncomingMessage, socket: Duplex): void {
  socket.end(rauwAntwoord(501, 'CONNECT wordt niet ondersteund: deze server is geen proxy.'));
}

/** An `Expect` other than 100-continue (Node answers 417 with an empty body unless someone listens). */
export function onbekendeVerwachting(_req: IncomingMessage, res: ServerResponse): void {
  const body = JSON.stringify({ fout: "Deze server ondersteunt alleen 'Expect: 100-continue'; stuur het verzoek zonder deze Expect-header." });
  res.writeHead(417, { ...KOPPEN, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

/** HTTP/1.1 requires Host; Node's own check (`requireHostHeader`, off) answered 400 with an empty body. */
export function installHostVereiste(app: FastifyInstance): void {
  app.addHook('onRequest', async (req, reply) => {
    if (req.raw.httpVersion === '1.1' && req.headers.host === undefined) {
      return stuurFout(reply.header('Connection', 'close'), 400, 'De Host-header ontbreekt; die is verplicht bij HTTP/1.1.');
    }
  });
}
