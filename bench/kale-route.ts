/**
 * The ceiling for `npm run bench`: a bare Fastify route in its own process that answers GET /kaal with
 * the same JSON body a real `whoami` gave (passed as argv[3]), with nothing else on the path.
 *
 *   node bench/kale-route.ts <port> '<json>'
 */
import Fastify from 'fastify';

const port = Number(process.argv[2]);
const body = process.argv[3] ?? '{}';
const app = Fastify({ logger: false });
app.get('/kaal', async (_req, reply) => reply.type('application/json; charset=utf-8').send(body));
await app.listen({ host: '127.0.0.1', port });
process.stdout.write('klaar\n');
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
