/** Real sample files kept in the repository (`test/fixtures`, provenance in its SOURCES.md). */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');
