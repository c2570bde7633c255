import { describe, expect, it } from 'vitest';
import { accountPath, returnPath } from '../../src/dashboard/return-path.js';

// The HTTP tests (dashboard-http.test.ts, oauth-http.test.ts) show each handler uses the rule;
// this table is the rule itself, case by case.
describe('returnPath: where sign-in or a password change may return to', () => {
  const accepted: Array<[string, string]> = [
    ['/dashboard', '/dashboard'],
    ['/dashboard/keys', '/dashboard/keys'],
    ['/dashboard/usage?workspace=ws_1', '/dashboard/usage?workspace=ws_1'],
    [
      '/dashboard/oauth/consent?client_id=oac_1&redirect_uri=http%3A%2F%2F127.0.0.1%3A33418%2Fcallback&scope=checks%3Aread+checks%3Awrite&state=st-1',
      '/dashboard/oauth/consent?client_id=oac_1&redirect_uri=http%3A%2F%2F127.0.0.1%3A33418%2Fcallback&scope=checks%3Aread+checks%3Awrite&state=st-1',
    ],
    // Dot segments that stay inside the dashboard are resolved, as the browser would.
    ['/dashboard/monitors/../keys', '/dashboard/keys'],
    // What is not a URI character is percent-encoded, so the Location header is always ASCII.
    ['/dashboard/a b/é', '/dashboard/a%20b/%C3%A9'],
    // A `%` that starts no escape, and a broken UTF-8 sequence, are text: nothing to hide.
    ['/dashboard/keys?q=50%25off', '/dashboard/keys?q=50%25off'],
    ['/dashboard/keys%E2%80', '/dashboard/keys%E2%80'],
    // A fragment never reaches the server; one given is dropped.
    ['/dashboard/keys#top', '/dashboard/keys'],
  ];
  it.each(accepted)('%j returns to %j', (next, expected) => {
    expect(returnPath(next)).toBe(expected);
  });

  const refused: Array<[string, string]> = [
    ['empty', ''],
    ['another site', 'https://evil.example/dashboard/keys'],
    ['a scheme-relative address', '//evil.example/dashboard/keys'],
    ['a relative path', 'dashboard/keys'],
    ['outside the dashboard', '/v1/checks'],
    ['a prefix that is not the dashboard', '/dashboardx/keys'],
    ['dot segments out of the dashboard', '/dashboard/../..//evil.com'],
    ['encoded dot segments out of the dashboard', '/dashboard/%2e%2E/%2E%2e//evil.com'],
    ['dot segments out, encoded slashes', '/dashboard/..%2f..%2f%2fevil.com'],
    ['a backslash', '/dashboard/x\\..\\..\\evil.com'],
    ['an encoded backslash', '/dashboard/%5c%5cevil.com'],
    ['CR LF', '/dashboard/x\r\nSet-Cookie: a=b'],
    ['encoded CR LF', '/dashboard/x%0d%0aSet-Cookie:%20a=b'],
    ['encoded CR LF in the query', '/dashboard/keys?workspace=%0D%0A'],
    ['doubly encoded CR LF', '/dashboard/x%250d%250a'],
    ['a TAB', '/dashboard/ke\tys'],
    ['NUL', '/dashboard/keys\u0000'],
    ['DEL', '/dashboard/keys\u007f'],
    ['a C1 control (NEL)', '/dashboard/keys\u0085'],
    ['an encoded C1 control (NEL)', '/dashboard/keys%C2%85'],
    ['U+2028', '/dashboard/keys\u2028'],
    ['U+2029', '/dashboard/keys?x=\u2029'],
    ['encoded U+2028', '/dashboard/keys%E2%80%A8'],
    ['encoded CR LF after a broken UTF-8 sequence', '/dashboard/keys%E2%80%0d%0a'],
  ];
  it.each(refused)('refuses %s (%j)', (_why, next) => {
    expect(returnPath(next)).toBeUndefined();
  });

  it('the account page carries only an accepted return path', () => {
    expect(accountPath('/dashboard/keys?workspace=ws_1')).toBe(
      '/dashboard/account?next=%2Fdashboard%2Fkeys%3Fworkspace%3Dws_1',
    );
    expect(accountPath('/dashboard/../..//evil.com')).toBe('/dashboard/account');
    expect(accountPath('/dashboard/x\r\n')).toBe('/dashboard/account');
  });
});
