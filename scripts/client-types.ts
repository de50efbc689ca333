/**
 * Generate the TypeScript types of the REST API (examples/typescript/insight-api.d.ts) from the
 * OpenAPI document with openapi-typescript. test/demo-contract.test.ts fails when they are stale.
 *   npm run client:types
 */
import { writeFileSync } from 'node:fs';
import { clientTypes } from '../examples/typescript/genereer.ts';

const uit = new URL('../examples/typescript/insight-api.d.ts', import.meta.url);
writeFileSync(uit, await clientTypes());
console.log(`typen -> ${uit.pathname}`);
