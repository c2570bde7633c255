import pg from 'pg';

/**
 * PostgreSQL-backed tests run when TEST_DATABASE_URL is set, and then PostgreSQL must be reachable:
 * an unreachable server fails the run here rather than silently skipping half the suite.
 */
export default async function setup(): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    console.log('PostgreSQL tests skipped: TEST_DATABASE_URL is not set (sqlite only).');
    return;
  }
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('select 1');
  } catch (error) {
    throw new Error(
      `TEST_DATABASE_URL is set but PostgreSQL is unreachable: ${(error as Error).message}`,
    );
  } finally {
    await client.end().catch(() => {});
  }
  console.log('PostgreSQL tests enabled: TEST_DATABASE_URL is set.');
}
