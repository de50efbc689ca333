/**
 * The one place that reads process.env. Parsed and validated once; every other module receives
 * the typed `Config` object. Each variable is described in docs/configuratie.md; `.env.example` mirrors this schema.
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import { issueTekst } from '../core/errors.ts';

const MAX_MS = 2_147_483_647; // Node's timers and statement_timeout: a signed 32-bit number of ms (24.8 days)
const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

const PROXY_NAMEN = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** Fastify's `trustProxy`: false, true, a number of hops, or addresses and CIDR ranges (proxy-addr's names too). */
const proxy = z.string().transform((v, ctx): boolean | number | string[] => {
  const s = v.trim();
  if (s === 'false' || s === '0') return false;
  if (s === 'true') return true;
  if (/^[1-9]$/.test(s)) return Number(s);
  const delen = s.split(',').map((d) => d.trim());
  const fout = delen.find((d) => {
    const [adres, bits, rest] = d.split('/');
    return !PROXY_NAMEN.has(d) && (!isIP(adres ?? '') || rest !== undefined || (bits !== undefined && !/^\d{1,3}$/.test(bits)));
  });
  if (fout !== undefined) ctx.addIssue({ code: 'custom', message: `'${fout}' is geen adres, CIDR-bereik of aantal proxy's (1-9)` });
  return delen;
});

/** Why `url` is no PostgreSQL URL ('' if it is); never repeats it, which may hold a password. The server parses it with `new URL`. */
function pgUrlFout(url: string): string {
  if (!/^postgres(ql)?:\/\//.test(url)) return 'moet met postgresql:// beginnen';
  try {
    new URL(url);
    return '';
  } catch {
    return 'is geen geldige URL (poort 1-65535, een IPv6-adres tussen [ ], bijzondere tekens in naam of wachtwoord als %XX)';
  }
}

export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  DATABASE_URL: z
    .string()
    .default('')
    .superRefine((v, ctx) => {
      const fout = v === '' ? '' : pgUrlFout(v);
      if (fout) ctx.addIssue({ code: 'custom', message: fout });
    }),
  DATABASE_REPLICA_URL: z
    .string()
    .default('')
    .transform((v) => v.split(',').map((u) => u.trim()).filter((u) => u !== ''))
    .superRefine((urls, ctx) => {
      urls.forEach((u, i) => {
        const fout = pgUrlFout(u);
        if (fout) ctx.addIssue({ code: 'custom', message: `replica ${i + 1} van ${urls.length} ${fout}` });
      });
    }),
  DATABASE_REPLICA_MAX_LAG_MS: z.coerce.number().int().min(100).max(MAX_MS).default(10_000),
  DATABASE_REPLICA_CHECK_MS: z.coerce.number().int().min(50).max(MAX_MS).default(1_000),
  DB_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(MAX_MS).default(10_000),
  DB_QUERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(MAX_MS).default(15_000),
  DATA_DIR: z.string().default('./data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  PUBLIC_BASE_URL: z.string().default(''),
  TRUST_PROXY: proxy.default(false),
  BODY_LIMIT: z.coerce.number().int().min(1024).default(64 * 1024),
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(MAX_MS).default(30_000),
  RATE_LIMIT_REST_PER_MIN: z.coerce.number().int().min(1).default(60),
  RATE_LIMIT_INVLOEDEN_PER_MIN: z.coerce.number().int().min(1).default(30),
  RATE_LIMIT_MCP_TOOLS_PER_MIN: z.coerce.number().int().min(1).default(30),
  RATE_LIMIT_MCP_PROTOCOL_PER_MIN: z.coerce.number().int().min(1).default(300),
  DEMO_CREDITS: z.coerce.number().int().min(0).max(2_147_483_647).default(10_000),
  // Unset: on for the embedded database only, so a first start on an empty PostgreSQL gives away no credits.
  DEMO_SEED: bool.optional(),
  DEMO_PLAATS: bool.default(true),
  WEBHOOK_ALLOW_INSECURE: bool.default(false),
  WEBHOOK_RETENTION_DAYS: z.coerce.number().int().min(1).default(30),
  // verbruik.adres (personal data) is blanked after this: a year of look-back in the web app (366 days) plus a margin.
  USAGE_ADDRESS_RETENTION_DAYS: z.coerce.number().int().min(1).default(400),
  METRICS_TOKEN: z.string().default(''),
});

export type Config = Omit<z.infer<typeof configSchema>, 'DEMO_SEED'> & { DEMO_SEED: boolean };

/** Parse an environment (defaults to process.env); throws a readable error naming each bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env, overrides: Partial<Record<keyof Config, string>> = {}): Config {
  const source: Record<string, string | undefined> = {};
  for (const key of Object.keys(configSchema.shape)) {
    const v = overrides[key as keyof Config] ?? env[key];
    if (v !== undefined && v !== '') source[key] = v;
  }
  const parsed = configSchema
    .refine((c) => c.DATABASE_REPLICA_URL.length === 0 || c.DATABASE_URL !== '', {
      path: ['DATABASE_REPLICA_URL'],
      message: 'replica’s vereisen DATABASE_URL (PostgreSQL); de ingebouwde database heeft geen replica’s',
    })
    .safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${issueTekst(i)}`);
    throw new Error(`Ongeldige configuratie:\n${lines.join('\n')}`);
  }
  return { ...parsed.data, DEMO_SEED: parsed.data.DEMO_SEED ?? parsed.data.DATABASE_URL === '' };
}
