import { z } from 'zod';
import { inzichtProcedure } from '../../core/trpc.ts';

/**
 * The gate of every MCP HTTP request: the same auth, family/right check and (protocol) rate limit as
 * any insight call, so the MCP gateway contains no rule of its own. Answers the principal, which the
 * gateway hands to the tool calls of this request. Not exposed over REST.
 */
export const mcpToegang = inzichtProcedure
  .meta({ mcpProtocol: true })
  .input(z.void())
  .query(({ ctx }) => ctx.principal);
