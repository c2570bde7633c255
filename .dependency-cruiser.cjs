// The layering of src/ (ARCHITECTURE.md, "Dependency rules"), checked by `npm run lint:layers`
// in `npm test`. Imports point down: process -> app -> front doors and modules -> http, sources
// and mirrors -> db -> lib and formats. Type-only imports count: a type two layers share lives in
// the lower one. Each rule names what it protects; an exception, if one is ever needed, goes in
// the rule's pathNot with a comment saying why.

/** Everything that calls into the domain: nothing below the modules may reach these. */
const CALLERS =
  '^src/(app|server|worker|domain|runtime)\\.ts$|^src/(dashboard|mcp|cli|jobs)/|^src/modules/.+\\.(service|store|routes)\\.ts$|^src/modules/accounts/key-verifier\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Two files that import each other are one idea in two places: no circles.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'front-door-imports-store',
      comment:
        'The dashboard, MCP and the CLI call services, never stores: a rule a service enforces must hold whichever door the call came through.',
      severity: 'error',
      from: { path: '^src/(dashboard|mcp|cli)/' },
      to: { path: '\\.store\\.ts$' },
    },
    {
      name: 'store-imports-jobs',
      comment:
        'Stores are persistence (db, ...) -> rows; the jobs that drive them sit above. Shared SQL such as the lease lives in src/db/.',
      severity: 'error',
      from: { path: '\\.store\\.ts$' },
      to: { path: '^src/jobs/' },
    },
    {
      name: 'config-read-below-the-process',
      comment:
        'Only the process and the app read config.ts; each layer owns its settings type (DatabaseConfig, LiveSourcesConfig, MirrorDownloadConfig) and config.ts composes them.',
      severity: 'error',
      from: {
        path: '^src/(db|lib|formats|sources|mirrors|feeds|http|modules|jobs|mcp|dashboard|kit)/',
      },
      to: { path: '^src/config(\\.ts$|/)' },
    },
    {
      name: 'lib-and-formats-are-the-floor',
      comment: 'Ids, clocks, helpers and the format rules import nothing of ours above them.',
      severity: 'error',
      from: { path: '^src/(lib|formats)/' },
      to: { path: '^src/', pathNot: '^src/(lib|formats)/' },
    },
    {
      name: 'db-imports-only-lib',
      comment:
        'The database layer (connection, migrations, leases, group commit) sits on lib only.',
      severity: 'error',
      from: { path: '^src/db/' },
      to: { path: '^src/', pathNot: '^src/(db|lib)/' },
    },
    {
      name: 'http-reaches-no-domain',
      comment:
        "The HTTP machinery (problems, auth, idempotency, pagination) is below the modules: it may use the caller's vocabulary (accounts/principal.ts, scopes) but never reach a service, store, route, source, job or front door, even through another file.",
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: `${CALLERS}|^src/(sources|mirrors)/`, reachable: true },
    },
    {
      name: 'sources-reach-no-domain',
      comment:
        'A registry source maps an upstream (or a mirror) to the RegistrySource interface and nothing else: it never reaches the modules, HTTP or a caller.',
      severity: 'error',
      from: { path: '^src/sources/' },
      to: { path: `${CALLERS}|^src/http/`, reachable: true },
    },
    {
      name: 'modules-import-no-caller',
      comment: 'Modules are called by the app, the jobs and the front doors, never the reverse.',
      severity: 'error',
      from: { path: '^src/modules/' },
      to: { path: '^src/(app|server|worker|domain|runtime)\\.ts$|^src/(dashboard|mcp|cli|jobs)/' },
    },
    {
      name: 'api-client-program-reaches-no-server',
      comment:
        "The CLI's API client commands (src/cli/api-program.ts: check, search, checks, monitors and events through the REST API) run in a process that never loads the server, its database drivers or registers: an import's memory and a check's start-up are the client's (docs/bulk.md). They reach the typed client (src/kit) and lib, never the app, the modules, the database or another front door.",
      severity: 'error',
      from: { path: '^src/cli/api-program\\.ts$' },
      to: {
        path: '^src/(app|server|worker|domain|runtime|config)\\.ts$|^src/(db|http|modules|sources|mirrors|jobs|mcp|dashboard|formats)/|^src/cli/program\\.ts$',
        reachable: true,
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports are arrows too (a type shared by two layers belongs to the lower one).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
