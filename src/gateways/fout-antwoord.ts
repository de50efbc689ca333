/** The one way every HTTP edge writes the contract's error body: `{"fout": "..."}` with its status and headers. */
import type { FastifyReply } from 'fastify';

export function stuurFout(reply: FastifyReply, status: number, fout: string, headers: Record<string, string> = {}) {
  return reply.code(status).headers(headers).type('application/json; charset=utf-8').send({ fout });
}

export function stuurNietToegestaan(reply: FastifyReply, methode: string, pad: string, toegestaan: string[]) {
  const allow = toegestaan.join(', ');
  const fout = pad === '/mcp' ? 'Deze MCP-server is stateless: gebruik POST /mcp.' : `Methode ${methode} is niet toegestaan op ${pad}; gebruik ${allow}.`;
  return stuurFout(reply, 405, fout, { Allow: allow });
}
