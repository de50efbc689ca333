/** The shared folder beside the repository (`../shared`): real sample files and datasets. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const SHARED = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared');
export const FIXTURES = path.join(SHARED, 'fixtures');
