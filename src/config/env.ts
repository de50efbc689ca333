/**
 * The one place that reads process.env. Parsed and validated once; every other module receives
 * the typed `Config` object. `.env.example` mirrors this schema.
 */
import { z } from 'zod';

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Empty: embedded PGlite in DATA_DIR. postgresql://...: a real PostgreSQL server. */
  DATABASE_URL: z
    .string()
    .default('')
    .refine((v) => v === '' || /^postgres(ql)?:\/\//.test(v), 'DATABASE_URL moet met postgresql:// beginnen'),
  /**
   * PostgreSQL streaming replicas (hot standbys of DATABASE_URL), comma-separated: the server reads the
   * register (addresses, WOZ, labels, house types, influences) from them; keys, balances, charges,
   * rate limits, idempotency, usage and webhooks stay on DATABASE_URL. docs/replicas.md.
   */
  DATABASE_REPLICA_URL: z
    .string()
    .default('')
    .transform((v) => v.split(',').map((u) => u.trim()).filter((u) => u !== ''))
    .refine((urls) => urls.every((u) => /^postgres(ql)?:\/\//.test(u)), 'DATABASE_REPLICA_URL: elke replica moet met postgresql:// beginnen'),
  /** A replica further behind the primary than this serves nothing until it has caught up. */
  DATABASE_REPLICA_MAX_LAG_MS: z.coerce.number().int().min(100).default(10_000),
  /** How often the replicas' state and lag are checked, in the background. */
  DATABASE_REPLICA_CHECK_MS: z.coerce.number().int().min(50).default(1_000),
  /**
   * PostgreSQL: the longest wait for a connection (new, or a free one from the pool) and for the answer
   * to one statement. A database host that silently drops packets then gives 503 after this, not a hang.
   */
  DB_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  DB_QUERY_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000),
  DATA_DIR: z.string().default('./data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  PUBLIC_BASE_URL: z.string().default(''),
  BODY_LIMIT: z.coerce.number().int().min(1024).default(64 * 1024),
  /**
   * Time a client gets to send a whole request, headers and body (Node's requestTimeout); a body
   * shorter than its Content-Length is cut off after this with 408. Headers alone get at most this too.
   */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  RATE_LIMIT_REST_PER_MIN: z.coerce.number().int().min(1).default(60),
  RATE_LIMIT_INVLOEDEN_PER_MIN: z.coerce.number().int().min(1).default(30),
  RATE_LIMIT_MCP_TOOLS_PER_MIN: z.coerce.number().int().min(1).default(30),
  RATE_LIMIT_MCP_PROTOCOL_PER_MIN: z.coerce.number().int().min(1).default(300),
  /** Credits a new demo account gets on the first start of the embedded default. */
  DEMO_CREDITS: z.coerce.number().int().min(0).default(10_000),
  /**
   * Load the demo account, key and synthetic dataset into an empty database at start. Unset: on for
   * the embedded database only, so a first start on an empty PostgreSQL gives away no credits.
   */
  DEMO_SEED: bool.optional(),
  /**
   * The synthetic demo town (what test keys answer for) in every register, production included: loaded
   * at start when its addresses are missing. false: left out, and removed if it was loaded before.
   */
  DEMO_PLAATS: bool.default(true),
  /** Webhooks: allow http:// and loopback targets (development and tests only). */
  WEBHOOK_ALLOW_INSECURE: bool.default(false),
  /** GET /metrics (Prometheus) requires `Authorization: Bearer <METRICS_TOKEN>`; empty: no /metrics at all (404). */
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
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Ongeldige configuratie:\n${lines.join('\n')}`);
  }
  return { ...parsed.data, DEMO_SEED: parsed.data.DEMO_SEED ?? parsed.data.DATABASE_URL === '' };
}
