import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';

// A message that has passed JSONRPCMessageSchema is told apart by its members.
const isRequest = (message: JSONRPCMessage) => 'method' in message && 'id' in message;
const isAnswer = (message: JSONRPCMessage) => 'result' in message || 'error' in message;

/** What the HTTP response to one POST /mcp is. */
export interface Exchange {
  status: number;
  /** A JSON-RPC message; none for a 202. */
  body?: unknown;
}

function jsonRpcError(status: number, code: number, message: string): Exchange {
  return { status, body: { jsonrpc: '2.0', error: { code, message }, id: null } };
}

/**
 * The HTTP half of MCP's Streamable HTTP transport for a stateless server that answers in JSON:
 * one POST carries one JSON-RPC message, and the answer to a request is the response body (a
 * notification or a response gets 202 and no body). The SDK's server does all of MCP itself; this
 * hands it the message and takes back its answer. It replaces the SDK's web-standard transport,
 * which builds a WHATWG Request, Response and stream around every message: that cost more than
 * the rest of a tool call's MCP work. The rules are the SDK transport's: the same status codes,
 * JSON-RPC error codes and protocol-version check.
 */
export class JsonExchangeTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  sessionId = undefined;
  private answer?: (message: JSONRPCMessage) => void;

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    // Only answers reach the client: a stateless server has no stream for requests or
    // notifications of its own, and advertises no capability that sends them.
    if (isAnswer(message)) this.answer?.(message);
  }

  async close(): Promise<void> {
    this.onclose?.();
  }

  /** The HTTP answer to one POSTed message (already parsed from JSON). */
  async exchange(
    headers: { accept?: string; protocolVersion?: string },
    body: unknown,
  ): Promise<Exchange> {
    const accept = headers.accept ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      return jsonRpcError(
        406,
        -32000,
        'Not Acceptable: Client must accept both application/json and text/event-stream',
      );
    }
    const parsed = JSONRPCMessageSchema.safeParse(body);
    if (!parsed.success) return jsonRpcError(400, -32700, 'Parse error: Invalid JSON-RPC message');
    const message = parsed.data;
    const version = headers.protocolVersion;
    const initializing =
      isRequest(message) && 'method' in message && message.method === 'initialize';
    if (!initializing && version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      return jsonRpcError(
        400,
        -32000,
        `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
      );
    }
    if (!isRequest(message)) {
      this.onmessage?.(message);
      return { status: 202 };
    }
    const answered = new Promise<JSONRPCMessage>((resolve) => {
      this.answer = resolve;
    });
    this.onmessage?.(message);
    return { status: 200, body: await answered };
  }
}
