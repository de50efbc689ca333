/**
 * Errors Node's HTTP server raises before Fastify sees a request, answered like every other error
 * (`{"fout"}`) instead of Fastify's `{"error","message"}`; then the connection closes.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';

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

export function httpParserFout(this: { log: FastifyBaseLogger }, err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, fout } = antwoordVoor(err.code);
  this.log.debug({ code: err.code, status }, 'HTTP-verzoek geweigerd door de parser');
  if (socket.writable) {
    const body = JSON.stringify({ fout });
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\nX-Content-Type-Options: nosniff\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** An `Expect` other than 100-continue (Node answers 417 with an empty body unless someone listens). */
export function onbekendeVerwachting(_req: IncomingMessage, res: ServerResponse): void {
  const body = JSON.stringify({ fout: "Deze server ondersteunt alleen 'Expect: 100-continue'; stuur het verzoek zonder deze Expect-header." });
  res.writeHead(417, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), Connection: 'close', 'X-Content-Type-Options': 'nosniff' });
  res.end(body);
}
