import { execFile, spawnSync } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

/** A network namespace of its own (root, or unprivileged user namespaces): its loopback is down, so every connect fails at once. */
const metNamespace = spawnSync('unshare', ['-n', 'true']).status === 0;

describe('a webhook to a host the kernel refuses at once (no route, a firewall REJECT)', () => {
  it.skipIf(!metNamespace)('is a failed attempt, not a crashed server process', async () => {
    const verzenden = path.resolve('src/domain/webhooks/verzenden.ts');
    const code = `
      import { verstuur } from ${JSON.stringify(verzenden)};
      const geheimen = ['whsec_' + Buffer.alloc(32).toString('base64')];
      for (const url of ['https://ontvanger.example/hook', 'http://ontvanger.example/hook']) {
        const u = await verstuur({ id: 'msg_1', body: '{}', url, geheimen }, { now: new Date(), onveilig: true, resolver: async () => [{ address: '127.0.0.1', family: 4 }], timeoutMs: 5000 });
        console.log(JSON.stringify(u));
      }`;
    const r = await run('unshare', ['-n', process.execPath, '--disable-warning=ExperimentalWarning', '--input-type=module', '-e', code]);
    const uitslagen = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(uitslagen).toEqual([
      { soort: 'fout', status: null, fout: 'Verbinding mislukt: ENETUNREACH' },
      { soort: 'fout', status: null, fout: 'Verbinding mislukt: ENETUNREACH' },
    ]);
  });
});
