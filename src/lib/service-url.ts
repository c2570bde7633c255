/** Where a client of the API (the CLI's API commands, the MCP bridge) looks by default. */
export const DEFAULT_SERVICE_URL = 'http://127.0.0.1:8080';
