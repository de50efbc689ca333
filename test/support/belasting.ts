/**
 * Simulated load: keep this process's event loop busy for a share of the time (as a server under real
 * traffic is), so timing-sensitive paths — waiting for a database connection, short transaction
 * timeouts — are exercised the way production exercises them. Always bounded: stop() ends it.
 */
export function bezetEventLoop(bezigMs = 40, vrijMs = 10): { stop(): Promise<void> } {
  let stoppen = false;
  const lus = (async () => {
    while (!stoppen) {
      const tot = Date.now() + bezigMs;
      while (Date.now() < tot) {
        // busy on purpose
      }
      await new Promise((r) => setTimeout(r, vrijMs));
    }
  })();
  return {
    async stop() {
      stoppen = true;
      await lus;
    },
  };
}
