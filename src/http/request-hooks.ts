import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../lib/clock.js';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * When the request arrived, by the app's clock: read once, before any check, and used by
     * every part of the request that needs the time (key and token verification, last-use).
     */
    now: Date;
  }
}

/**
 * A check of one stage. It returns nothing when it is done (most requests: at once, having found
 * nothing to do), or a promise when it has to wait for something (a key lookup, a shared rate
 * limit). It refuses a request by throwing (or rejecting) an HttpProblem; it never sends a reply.
 */
export type RequestCheck = (request: FastifyRequest, reply: FastifyReply) => void | Promise<void>;

/** The stages that take checks. onSend checks see the response but never replace the payload. */
export type RequestStage = 'onRequest' | 'preParsing' | 'preValidation' | 'preHandler' | 'onSend';

export type RequestHooks = Record<RequestStage, { add(check: RequestCheck): void }>;

type Done = (error?: Error) => void;

/**
 * Runs `checks` in order, synchronously for as long as none returns a promise: a request that
 * waits on nothing costs no promise and no turn of the event loop, where an async hook costs
 * both, for every hook and every request.
 */
function runChecks(
  checks: readonly RequestCheck[],
  request: FastifyRequest,
  reply: FastifyReply,
  done: Done,
): void {
  let next = 0;
  const resume = (): void => {
    while (next < checks.length) {
      const check = checks[next++] as RequestCheck;
      let pending: void | Promise<void>;
      try {
        pending = check(request, reply);
      } catch (error) {
        done(error as Error);
        return;
      }
      if (pending) {
        pending.then(resume, done);
        return;
      }
    }
    done();
  };
  resume();
}

/**
 * One request hook per stage for the whole app (problem handling, protocol checks, channels, rate
 * limits, authentication, the empty body): each module adds its checks, in the order of the
 * calls, and each stage is one callback hook that runs them. Eleven async hooks (a promise each
 * per request) cost about a fifth of a sandbox check's server CPU in the issue 27 profile.
 *
 * A stage's hook is added to the app when it gets its first check, so it runs where that module
 * was registered relative to hooks still added directly (idempotency's).
 */
export function createRequestHooks(app: FastifyInstance, clock: Clock): RequestHooks {
  app.decorateRequest('now', null as unknown as Date);
  const installed = new Map<RequestStage, RequestCheck[]>();

  function install(stage: RequestStage): RequestCheck[] {
    const checks: RequestCheck[] = [];
    installed.set(stage, checks);
    if (stage === 'onSend') {
      app.addHook('onSend', (request, reply, payload, done) => {
        runChecks(checks, request, reply, (error) => (error ? done(error) : done(null, payload)));
      });
    } else if (stage === 'onRequest') {
      app.addHook('onRequest', (request, reply, done) => {
        request.now = clock.now();
        runChecks(checks, request, reply, done);
      });
    } else if (stage === 'preParsing') {
      app.addHook('preParsing', (request, reply, payload, done) => {
        runChecks(checks, request, reply, (error) => (error ? done(error) : done(null, payload)));
      });
    } else if (stage === 'preValidation') {
      app.addHook('preValidation', (request, reply, done) =>
        runChecks(checks, request, reply, done),
      );
    } else {
      app.addHook('preHandler', (request, reply, done) => runChecks(checks, request, reply, done));
    }
    return checks;
  }

  const stage = (name: RequestStage) => ({
    add(check: RequestCheck) {
      (installed.get(name) ?? install(name)).push(check);
    },
  });
  // The time is set by the onRequest hook: it exists from the start, checks or not.
  install('onRequest');
  return {
    onRequest: stage('onRequest'),
    preParsing: stage('preParsing'),
    preValidation: stage('preValidation'),
    preHandler: stage('preHandler'),
    onSend: stage('onSend'),
  };
}

/** Whether a check's (or a store's) answer is still to come. */
export function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
