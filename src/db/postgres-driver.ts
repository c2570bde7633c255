import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type pg from 'pg';
import { sqlStateOf } from './deferred-writes.js';
import { isPreparedQuery } from './fixed-statements.js';
import { UnitConnection } from './postgres-units.js';

/**
 * Server-side names of the fixed statements: PostgreSQL then parses each once per connection and
 * may keep a generic plan, where an unnamed statement is parsed and planned on every run (a third
 * of PostgreSQL's CPU per check, measured). Only fixed texts are named: the texts of `prepared`
 * and `deferrable` statements and the combined statements built from them (a bounded set), never
 * a query whose text changes with its input (lists, filters).
 */
const statementNames = new Map<string, string>();
let namedCount = 0;

function nameOf(sql: string): string {
  let name = statementNames.get(sql);
  if (name === undefined) {
    name = `fw_${(namedCount++).toString(36)}`;
    statementNames.set(sql, name);
  }
  return name;
}

/**
 * PostgreSQL refuses to run a prepared statement whose result columns changed under it (a
 * migration applied by a newer process during a rolling restart); that statement is prepared
 * again under a new name.
 */
function isStalePlan(error: unknown): boolean {
  const { code, message } = sqlStateOf(error);
  return code === '0A000' && typeof message === 'string' && message.includes('cached plan');
}

/**
 * One pooled pg client as a Kysely connection: Kysely's own PostgreSQL connection, plus names
 * for the fixed statements.
 */
export class ClientConnection {
  constructor(readonly client: pg.PoolClient) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const values = [...query.parameters];
    const named = isPreparedQuery(query);
    let result: pg.QueryResult;
    try {
      result = named
        ? await this.client.query({ name: nameOf(query.sql), text: query.sql, values })
        : await this.client.query(query.sql, values);
    } catch (error) {
      if (!named || !isStalePlan(error)) throw error;
      statementNames.delete(query.sql);
      result = await this.client.query({ name: nameOf(query.sql), text: query.sql, values });
    }
    const { command, rowCount, rows } = result;
    return {
      numAffectedRows:
        command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE'
          ? BigInt(rowCount ?? 0)
          : undefined,
      rows: (rows ?? []) as R[],
    };
  }
}

/**
 * Kysely's PostgreSQL driver, over a pg pool, with unit-capable connections (`UnitConnection`)
 * that name the fixed statements. Kysely's own transactions and every statement outside a unit
 * pass through unchanged.
 */
export function unitCapableDriver(pool: pg.Pool): Driver {
  const connections = new WeakMap<pg.PoolClient, UnitConnection>();
  const clients = new WeakMap<DatabaseConnection, pg.PoolClient>();
  const raw = (connection: DatabaseConnection, sql: string) =>
    connection.executeQuery(CompiledQuery.raw(sql)).then(() => {});
  return {
    async init() {},
    async acquireConnection() {
      const client = await pool.connect();
      let connection = connections.get(client);
      if (!connection) {
        connection = new UnitConnection(new ClientConnection(client));
        connections.set(client, connection);
        clients.set(connection, client);
      }
      return connection;
    },
    beginTransaction: (connection, settings: TransactionSettings) =>
      raw(
        connection,
        settings.isolationLevel || settings.accessMode
          ? [
              'start transaction',
              settings.isolationLevel && `isolation level ${settings.isolationLevel}`,
              settings.accessMode,
            ]
              .filter(Boolean)
              .join(' ')
          : 'begin',
      ),
    commitTransaction: (connection) => raw(connection, 'commit'),
    rollbackTransaction: (connection) => raw(connection, 'rollback'),
    async releaseConnection(connection) {
      clients.get(connection)?.release();
    },
    destroy: () => pool.end(),
  };
}
