/**
 * The ways an API key reaches a URL: literal, percent-encoded once or twice (with upper- or
 * lower-case hex), one letter encoded, in capitals, next to malformed escapes. Each is a query
 * string (without `?`) carrying the key `svc_<env>_<secret>`.
 */
export function keyQueryStrings(secret: string): string[] {
  return [
    `k=svc_test_${secret}`,
    `k=svc%5Ftest%5F${secret}`,
    `k=svc%5ftest%5f${secret}`,
    `k=svc_%74est_${secret}`,
    `k=%73%76%63%5F%6C%69%76%65%5F${secret}`,
    `k=SVC_TEST_${secret}`,
    `api_key=Svc_Live_${secret}`,
    `k=svc%255Ftest%255F${secret}`,
    `k=svc%25255Ftest_${secret}`,
    `k=svc%%35Ftest_${secret}`,
    `bad=%zz&also=%&k=svc%5Ftest_${secret}`,
  ];
}

/** A 32-character secret that appears nowhere else, so a log containing it leaked this key. */
export function uniqueSecret(): string {
  return `${Date.now().toString(36)}${Math.random().toString(36).slice(2)}`
    .padEnd(32, 'Q')
    .slice(0, 32);
}
