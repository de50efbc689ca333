/**
 * Every procedure whose meta has `mcp` is a tool (English names, contract 4.3). Arguments are the
 * procedure's input with `adres` flattened, so the published schema is the one that validates.
 */
import { z } from 'zod';
import { HUISNUMMER_RE } from '../../domain/begrippen.ts';
import { appRouter } from '../../procedures/router.ts';
import { createCallerFactory, type Meta } from '../../core/trpc.ts';
import { kostTekst } from '../../core/prijzen.ts';

export const createCaller = createCallerFactory(appRouter);
export type Caller = ReturnType<typeof createCaller>;

export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputShape: z.ZodRawShape;
  /** Strict, so the listed JSON Schema says additionalProperties: false. */
  inputSchema: z.ZodObject;
  outputSchema: z.ZodObject;
  kosten: string;
  call(caller: Caller, args: Record<string, unknown>): Promise<unknown>;
}

/** The procedure publishes huisnummer as text (the REST contract); the MCP contract publishes text or integer. */
function vlakkeArgumenten(invoer: z.ZodObject): z.ZodRawShape {
  const { adres, ...opties } = invoer.shape;
  const velden = (adres as z.ZodObject).shape;
  // Null is published (and accepted) for every optional argument, as for toevoeging: procedureInvoer drops it.
  const extra = Object.fromEntries(
    Object.entries(opties).map(([k, s]) => [k, s instanceof z.ZodOptional ? z.nullable(s.unwrap()).optional().meta(z.globalRegistry.get(s) ?? {}) : s]),
  );
  const huisnummer = z
    .union([z.string().regex(HUISNUMMER_RE), z.int().min(1).max(99999)])
    .meta({ description: 'Huisnummer, 1 tot en met 99999, als tekst of als geheel getal.', examples: ['12'] });
  return { ...velden, huisnummer, ...extra };
}

function procedureInvoer(args: Record<string, unknown>): Record<string, unknown> {
  const { postcode, huisnummer, toevoeging, ...opties } = args;
  const extra = Object.fromEntries(Object.entries(opties).filter(([, v]) => v !== null));
  return { adres: { postcode, huisnummer, ...(toevoeging !== undefined ? { toevoeging } : {}) }, ...extra };
}

type Procedure = (input: unknown) => Promise<unknown>;

function procedureOp(caller: Caller, pad: string): Procedure {
  let o: unknown = caller;
  for (const deel of pad.split('.')) o = (o as Record<string, unknown>)[deel];
  return o as Procedure;
}

export const foutUitvoer = z.strictObject({ fout: z.string(), status: z.int().min(400).max(599) });

/**
 * Both answer and `{fout, status}`: SDK 1.x clients validate `structuredContent` of isError results too
 * (typescript-sdk#1943). An object carrying the union, since clients require `type: "object"` at the root.
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
  appRouter._def.procedures as unknown as Record<string, { _def: { meta?: Meta; inputs: z.ZodType[]; output?: z.ZodType } }>,
).flatMap(([pad, proc]) => {
  const { mcp, voorziening } = proc._def.meta ?? {};
  const [invoer] = proc._def.inputs;
  const antwoord = proc._def.output;
  if (!mcp) return [];
  if (!antwoord || !voorziening || !(invoer instanceof z.ZodObject)) {
    throw new Error(`MCP-tool ${mcp.tool}: de procedure ${pad} heeft geen object als .input(), geen .output(...) of geen voorziening`);
  }
  const inputShape = vlakkeArgumenten(invoer);
  return [
    {
      name: mcp.tool,
      title: mcp.titel,
      description: mcp.beschrijving,
      inputShape,
      inputSchema: z.strictObject(inputShape),
      outputSchema: uitvoerSchema(antwoord),
      kosten: kostTekst(voorziening),
      call: (caller: Caller, args: Record<string, unknown>) => procedureOp(caller, pad)(procedureInvoer(args)),
    },
  ];
});
