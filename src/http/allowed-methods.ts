import type { FastifyInstance } from 'fastify';
import FindMyWay from 'find-my-way';

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

export interface AllowedMethods {
  /** The methods some route serves at this path, in a stable order; undefined when none does. */
  forPath(path: string): string[] | undefined;
}

/**
 * Fastify answers 404 for a known path with an unknown method; the contract wants 405 with Allow.
 * This keeps a second router of every registered path (under one pseudo-method) whose store is
 * the set of methods, so the not-found handler can tell "no such path" from "wrong method".
 */
export function trackAllowedMethods(app: FastifyInstance): AllowedMethods {
  const router = FindMyWay({ ignoreTrailingSlash: true });
  const methodsByUrl = new Map<string, Set<string>>();

  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat().map((m) => m.toUpperCase());
    let known = methodsByUrl.get(route.url);
    if (!known) {
      known = new Set();
      methodsByUrl.set(route.url, known);
      router.on('GET', route.url, () => {}, known);
    }
    for (const method of methods) known.add(method);
    // Fastify serves HEAD for every GET route.
    if (known.has('GET')) known.add('HEAD');
  });

  return {
    forPath(path) {
      const found = router.find('GET', path);
      if (!found) return undefined;
      const methods = found.store as Set<string>;
      return METHOD_ORDER.filter((m) => methods.has(m));
    },
  };
}
