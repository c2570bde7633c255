import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PROBE_SERVER,
  runCli,
  type ServingProcess,
  startServeProcess,
  stopServeProcess,
} from '../helpers/cli.js';
import { createScratchPostgresDatabase, DIALECTS } from '../helpers/databases.js';
import { readJson } from '../helpers/http.js';
import { expectProblem } from '../helpers/problems.js';

describe.runIf(DIALECTS.includes('postgres'))(
  'idempotency across server processes on one PostgreSQL database',
  () => {
    let database: Awaited<ReturnType<typeof createScratchPostgresDatabase>>;
    let nodes: ServingProcess[] = [];
    let apiKey: string;

    beforeAll(async () => {
      database = await createScratchPostgresDatabase();
      const env = { DATABASE_URL: database.url };
      // Both nodes start (and migrate) at the same time, as in a rolling deploy.
      nodes = await Promise.all([
        startServeProcess(env, PROBE_SERVER),
        startServeProcess(env, PROBE_SERVER),
      ]);
      const workspace = JSON.parse(
        (await runCli(['workspace', 'create', '--name', 'Two nodes', '--json'], env)).stdout,
      );
      const created = JSON.parse(
        (
          await runCli(
            ['key', 'create', '--workspace', workspace.id, '--environment', 'sandbox', '--json'],
            env,
          )
        ).stdout,
      );
      apiKey = created.key;
    });

    afterAll(async () => {
      await Promise.all(nodes.map(stopServeProcess));
      await database?.drop();
    });

    it('the same key sent to two processes at once executes exactly once', async () => {
      const post = (node: ServingProcess, key: string, name: string) =>
        fetch(`${node.started.url}/probes`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${apiKey}`,
            'content-type': 'application/json',
            'idempotency-key': key,
          },
          body: JSON.stringify({ name, hold_ms: 400 }),
        });
      const rounds = 5;
      for (let round = 0; round < rounds; round++) {
        const key = `two-nodes-${round}-${Date.now()}`;
        const [a, b] = nodes as [ServingProcess, ServingProcess];
        const responses = await Promise.all([post(a, key, `n${round}`), post(b, key, `n${round}`)]);
        expect(responses.map((r) => r.status).sort()).toEqual([201, 409]);
        const loser = responses.find((r) => r.status === 409) as Response;
        await expectProblem(loser, 409, 'idempotency_request_in_progress');
        const winner = responses.find((r) => r.status === 201) as Response;
        const winnerBody = await winner.text();
        // The retry, on the node that lost, receives the winner's response.
        const retry = await post(responses[0] === loser ? a : b, key, `n${round}`);
        expect(retry.headers.get('idempotency-replayed')).toBe('true');
        expect(await retry.text()).toBe(winnerBody);
      }
      const list = await readJson(
        await fetch(`${nodes[0]?.started.url}/probes?limit=100`, {
          headers: { authorization: `Bearer ${apiKey}` },
        }),
      );
      expect(list.data).toHaveLength(rounds);
    });
  },
);
