/** Developer command: `npm run migrate:create -- <name>` writes prisma/migrations/<stamp>_<name>. */
import { createMigration } from '../src/db/migrate.ts';

const name = process.argv[2];
if (!name) {
  console.error('Gebruik: npm run migrate:create -- <naam>');
  process.exit(2);
}
const folder = await createMigration(name);
console.log(folder ? `Nieuwe migratie: prisma/migrations/${folder}` : 'Geen wijzigingen in prisma/schema.prisma: geen migratie nodig.');
