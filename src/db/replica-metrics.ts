/** Returns the unsubscribe, for the app's onClose. */
import { Counter, Gauge, type Registry } from 'prom-client';
import { registerLezingen, replicasVan, type Db } from './client.ts';
import { REPLICA_TOESTANDEN } from './replicas.ts';

export function registreerReplicaMetrics(register: Registry, db: Db): () => void {
  const lezingen = new Counter({
    name: 'insight_db_register_lezingen_total',
    help: 'Registerlezingen (adres, WOZ, label, woningtype, invloeden) per bron: replica, of primair (geen replica ingesteld of bruikbaar, of de lezing op de replica mislukte).',
    labelNames: ['bron'],
    registers: [register],
  });
  new Gauge({
    name: 'insight_db_replica_toestand',
    help: 'Toestand per replica (1 voor de huidige): bruikbaar, achter (verder achter dan DATABASE_REPLICA_MAX_LAG_MS), weg (onbereikbaar of geen standby), onbekend.',
    labelNames: ['replica', 'toestand'],
    registers: [register],
    collect() {
      for (const r of replicasVan(db)?.lijst ?? []) {
        for (const toestand of REPLICA_TOESTANDEN) this.set({ replica: r.naam, toestand }, r.toestand === toestand ? 1 : 0);
      }
    },
  });
  new Gauge({
    name: 'insight_db_replica_achterstand_seconden',
    help: 'Achterstand per replica op de primaire database bij de laatste controle (op één controle-interval nauwkeurig); -1: onbekend.',
    labelNames: ['replica'],
    registers: [register],
    collect() {
      for (const r of replicasVan(db)?.lijst ?? []) this.set({ replica: r.naam }, r.achterstandS ?? -1);
    },
  });
  return registerLezingen.volg(db, (bron) => lezingen.inc({ bron }));
}
