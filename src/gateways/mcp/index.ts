/**
 * POST /mcp: the MCP server over streamable HTTP, stateless (one server and transport per request).
 * Thin: every request first passes the core's `mcp.toegang` (auth, family, protocol rate limit); every
 * tool calls the same procedure REST calls, with the principal the gate authenticated (one key lookup), on the channel 'mcp' (its own rate limit and argument-hash
 * idempotency are core rules). Expected failures are tool results with isError and `{"fout": ...}`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createContextInner, type Services } from '../../core/context.ts';
import { naarFout } from '../../core/errors.ts';
import { kostenMeta } from '../../core/kosten.ts';
import { prijsTekst } from '../../core/prijzen.ts';
import { createCaller, MCP_TOOLS, type McpTool } from './tools.ts';
import { stuurFout } from '../fout-antwoord.ts';
import { ongeldigeBodyFout } from '../json-body.ts';
import type { Principal } from '../../domain/keys/sleutels.ts';

/** One JSON-RPC tools/call message (a batch or anything else is a protocol message). */
function isToolCall(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && (body as { method?: unknown }).method === 'tools/call';
}

type ToolAntwoord = { isError?: boolean; content: { type: 'text'; text: string }[]; structuredContent: Record<string, unknown>; _meta: Record<string, unknown> };

/** The initialize result's `instructions`: what the tools are for and what each costs (prices from core/prijzen.ts). */
export const INSTRUCTIES = [
  'Insight geeft per Nederlands adres een oordeel: marktwaarde, kenmerken uit de BAG, WOZ-waarden en omgevingsinvloeden. ' +
    'Elke tool neemt postcode, huisnummer en eventueel toevoeging (huisletter A, toevoeging -2, beide A-2) en betaalt met het tegoed van de sleutel ' +
    `(1 credit = ${prijsTekst(1)}):`,
  ...MCP_TOOLS.map((t) => `- ${t.name} (${t.title}): ${t.kosten} per aanroep.`),
  'Niet in rekening gebracht: ongeldige invoer, een onbekend adres, onvoldoende tegoed, en een identieke aanroep binnen 24 uur (die krijgt het bewaarde antwoord). ' +
    'Wat een aanroep kostte en het saldo erna staan in _meta (gefactureerd_cent, saldo_credits). ' +
    'Een fout is een resultaat met isError en {"fout", "status"}; de gegevens zijn in het Nederlands.',
].join('\n');

/**
 * One JSON Schema validator for every request's server. The SDK makes a new one (a fresh Ajv instance
 * with its meta-schemas) for each server it is not given one: that was the largest single cost of an MCP
 * call in a CPU profile (npm run bench:profiel -- --scenario mcp). Ajv caches what it compiles, so
 * sharing it also compiles each schema once per process instead of once per request.
 */
const schemaValidator = new AjvJsonSchemaValidator();

/**
 * The MCP server for one HTTP request. `alleenAanroep`: the request is one tools/call message, which
 * the handler below answers by itself; the tools are then not registered (registering converts each
 * tool's schemas, which only tools/list needs: a measurable part of every tool call).
 */
function bouwServer(services: Services, principal: Principal, req: FastifyRequest, reply: FastifyReply, alleenAanroep: boolean): McpServer {
  const server = new McpServer(
    { name: 'insight-api', version: '1.0.0' },
    { capabilities: { tools: {} }, instructions: INSTRUCTIES, jsonSchemaValidator: schemaValidator },
  );
  const voerUit = async (tool: McpTool, args: Record<string, unknown>): Promise<ToolAntwoord> => {
    const gezet: Record<string, string> = {};
    const ctx = createContextInner({
      services,
      kanaal: 'mcp',
      authorization: req.headers.authorization,
      principal,
      mcpTool: tool.name,
      requestId: String(req.id),
      setHeader: (k, v) => {
        gezet[k] = v;
        if (!reply.raw.headersSent) reply.raw.setHeader(k, v);
      },
    });
    try {
      const antwoord = (await tool.call(createCaller(ctx), args)) as Record<string, unknown>;
      return { content: [{ type: 'text' as const, text: JSON.stringify(antwoord) }], structuredContent: antwoord, _meta: kostenMeta(gezet) };
    } catch (err) {
      const f = naarFout(err);
      if (f.intern) req.log.error({ err, tool: tool.name }, 'interne fout bij MCP-tool');
      return toolFout(f.status, f.fout, kostenMeta(gezet));
    }
  };
  for (const tool of alleenAanroep ? [] : MCP_TOOLS) {
    server.registerTool(
      tool.name,
      { title: tool.title, description: tool.description, inputSchema: tool.inputShape, outputSchema: tool.outputSchema, annotations: { readOnlyHint: true, openWorldHint: false, idempotentHint: true } },
      (args: Record<string, unknown>) => voerUit(tool, args),
    );
  }
  // tools/call is answered here, not by McpServer: its own argument check answers in English and drops
  // unknown arguments. The arguments go to the procedure as they came, so it validates them with the
  // REST schemas and messages; an argument the tool does not declare is refused like an unknown field.
  server.server.setRequestHandler(CallToolRequestSchema, async (verzoek) => {
    const tool = MCP_TOOLS.find((t) => t.name === verzoek.params.name);
    if (!tool) return toolFout(404, `Onbekende tool '${verzoek.params.name}'; beschikbaar: ${MCP_TOOLS.map((t) => t.name).join(', ')}.`, {});
    const args = verzoek.params.arguments ?? {};
    const onbekend = Object.keys(args).filter((k) => !Object.hasOwn(tool.inputShape, k));
    if (onbekend.length) return toolFout(400, `Ongeldige invoer: onbekend argument ${onbekend.map((k) => `'${k}'`).join(', ')}.`, {});
    return voerUit(tool, args);
  });
  // registerTool advertises tools.listChanged; a stateless server never sends that notification.
  server.server.registerCapabilities({ tools: { listChanged: undefined } });
  return server;
}

function toolFout(status: number, fout: string, meta: Record<string, unknown>): ToolAntwoord {
  const body = { fout, status };
  return { isError: true, content: [{ type: 'text' as const, text: JSON.stringify(body) }], structuredContent: body, _meta: meta };
}

export async function registerMcp(app: FastifyInstance, services: Services) {
  app.post('/mcp', async (req, reply) => {
    let principal: Principal;
    const mcpToolCall = isToolCall(req.body);
    try {
      // A tools/call message is counted by the tool's own bucket, so the gate counts it in no other.
      principal = await createCaller(
        createContextInner({ services, kanaal: 'mcp', authorization: req.headers.authorization, mcpToolCall, requestId: String(req.id), setHeader: (k, v) => void reply.header(k, v) }),
      ).mcp.toegang();
    } catch (err) {
      const f = naarFout(err);
      return stuurFout(reply, f.status, f.fout, f.headers);
    }
    if (req.body === undefined || typeof req.body !== 'object' || ongeldigeBodyFout(req.body)) {
      return stuurFout(reply, 400, ongeldigeBodyFout(req.body) ?? 'De body is geen geldige JSON-RPC-boodschap.');
    }
    const server = bouwServer(services, principal, req, reply, mcpToolCall);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.hijack();
    for (const [k, v] of Object.entries(reply.getHeaders())) if (v !== undefined) reply.raw.setHeader(k, v as string);
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req.raw, reply.raw, req.body);
    } catch (err) {
      req.log.error({ err }, 'MCP-verzoek mislukt');
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ fout: naarFout(err).fout }));
      }
    }
  });
  const nietToegestaan = async (_req: FastifyRequest, reply: FastifyReply) =>
    stuurFout(reply, 405, 'Deze MCP-server is stateless: gebruik POST /mcp.', { Allow: 'POST' });
  app.get('/mcp', nietToegestaan);
  app.delete('/mcp', nietToegestaan);
}
