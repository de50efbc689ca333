/** The one way every HTTP edge writes the contract's error body: `{"fout": "..."}` with its status and headers. */
import type { FastifyReply } from 'fastify';

export function stuurFout(reply: FastifyReply, status: number, fout: string, headers: Record<string, string> = {}) {
  return reply.code(status).headers(headers).type('application/json; charset=utf-8').send({ fout });
}
