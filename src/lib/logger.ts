import { type DestinationStream, type Logger, pino } from 'pino';
import { redactKeys } from './redact.js';

interface LoggedRequest {
  method: string;
  url: string;
  ip?: string;
}

/**
 * The service's JSON logger. Requests are logged by method, path and client address only: never
 * headers (the Authorization header carries the key), and URLs with anything key-shaped redacted.
 */
export function createLogger(level: string, destination: DestinationStream): Logger {
  return pino(
    {
      level,
      serializers: {
        req: (req: LoggedRequest) => ({ method: req.method, url: redactKeys(req.url), ip: req.ip }),
        res: (res: { statusCode: number }) => ({ status: res.statusCode }),
        err: pino.stdSerializers.err,
      },
    },
    destination,
  );
}
