/**
 * The MCP tools, built in a loop over the router: every procedure whose meta has `mcp` is a tool.
 * Tool names are English (contract 4.3); the data they return is the REST answer, in Dutch. A tool
 * call maps its flat arguments onto the procedure's REST body `{adres: {...}, ...extra}`.
 */
import { z } from 'zod';
import { HUISNUMMER_RE, POSTCODE_INVOER_RE } from '../../domain/begrippen.ts';
import { appRouter } from '../../procedures/router.ts';
import { createCallerFactory, type Meta } from '../../core/trpc.ts';
import { kostTekst } from '../../core/prijzen.ts';

export const createCaller = createCallerFactory(appRouter);
export type Caller = ReturnType<typeof createCaller>;

/**
 * Flat address arguments, published as strictly as the REST body (same patterns). These schemas are
 * only listed: tools/call hands the arguments to the procedure as sent, which validates them with the
 * REST schemas and messages (gateways/mcp/index.ts).
 */
const adresArgs = {
  postcode: z.string().regex(POSTCODE_INVOER_RE).describe('Nederlandse postcode, 1234AB of 1234 ab'),
  huisnummer: z.union([z.string().regex(HUISNUMMER_RE), z.int().min(1).max(99999)]).describe('Huisnummer, 1 tot en met 99999'),
  toevoeging: z.string().nullable().optional().describe('Huisletter en/of toevoeging: A, 2, A-2'),
};

/** Flat tool arguments -> the REST body: the address nested, the other arguments as they are. */
function restBody(args: Record<string, unknown>): Record<string, unknown> {
  const { postcode, huisnummer, toevoeging, ...extra } = args;
  return {
    adres: {
      postcode,
      huisnummer: typeof huisnummer === 'number' ? String(huisnummer) : huisnummer,
      ...(toevoeging !== undefined ? { toevoeging } : {}),
    },
    ...Object.fromEntries(Object.entries(extra).filter(([, v]) => v !== undefined)),
  };
}

export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputShape: z.ZodRawShape;
  /** What `structuredContent` holds: the procedure's answer, or `{fout, status}` of an isError result. */
  outputSchema: z.ZodObject;
  /** The price as the instructions state it: `18 credits (€ 0,90)`. */
  kosten: string;
  call(caller: Caller, args: Record<string, unknown>): Promise<unknown>;
}

type Procedure = (input: unknown) => Promise<unknown>;

/** The procedure at a router path ('inzicht.waarde') on a caller. */
function procedureOp(caller: Caller, pad: string): Procedure {
  let o: unknown = caller;
  for (const deel of pad.split('.')) o = (o as Record<string, unknown>)[deel];
  return o as Procedure;
}

/** `structuredContent` of an isError result (gateways/mcp/index.ts). */
export const foutUitvoer = z.strictObject({ fout: z.string(), status: z.int().min(400).max(599) });

/**
 * A tool's outputSchema, from the procedure's own `.output(...)` so it cannot drift: the answer or
 * `{fout, status}`. Both, because SDK 1.x clients validate `structuredContent` of isError results too
 * (typescript-sdk#1943). Written as an object carrying the union in its JSON Schema, because clients
 * require `type: "object"` at the root and McpServer lists only a Zod object; the object's check runs
 * the same union, so server and JSON Schema agree.
 */
function uitvoerSchema(antwoord: z.ZodType): z.ZodObject {
  const unie = z.union([antwoord, foutUitvoer]);
  const { $schema: _, ...json } = z.toJSONSchema(unie, { target: 'draft-7', io: 'output' });
  return z
    .looseObject({})
    .superRefine((waarde, ctx) => {
      const r = unie.safeParse(waarde);
      if (!r.success) for (const issue of r.error.issues) ctx.addIssue({ ...issue, code: 'custom', input: waarde });
    })
    .meta({ ...json, additionalProperties: true });
}

export const MCP_TOOLS: McpTool[] = Object.entries(
  appRouter._def.procedures as unknown as Record<string, { _def: { meta?: Meta; output?: z.ZodType } }>,
).flatMap(([pad, proc]) => {
  const m = proc._def.meta?.mcp;
  const antwoord = proc._def.output;
  if (!m) return [];
  if (!antwoord || !m.voorziening) throw new Error(`MCP-tool ${m.tool}: de procedure ${pad} heeft geen .output(...) of voorziening`);
  return [
    {
      name: m.tool,
      title: m.titel,
      description: m.beschrijving,
      inputShape: { ...adresArgs, ...m.extraArgumenten },
      outputSchema: uitvoerSchema(antwoord),
      kosten: kostTekst(m.voorziening),
      call: (caller: Caller, args: Record<string, unknown>) => procedureOp(caller, pad)(restBody(args)),
    },
  ];
});
