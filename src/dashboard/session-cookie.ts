import type { FastifyReply, FastifyRequest } from 'fastify';

/** The cookie that carries a dashboard session's token (only its hash is stored). */
export const SESSION_COOKIE = 'fw_session';

/** Every dashboard cookie stays under /dashboard, so the JSON API under /v1 never receives one. */
export const DASHBOARD_COOKIE_PATH = '/dashboard';

export function sessionToken(request: FastifyRequest): string | undefined {
  return request.cookies[SESSION_COOKIE];
}

/** Set after sign-in; Secure when the public address is https. */
export function setSessionCookie(
  reply: FastifyReply,
  session: { token: string; expiresAt: Date },
  secure: boolean,
): void {
  reply.setCookie(SESSION_COOKIE, session.token, {
    path: DASHBOARD_COOKIE_PATH,
    httpOnly: true,
    sameSite: 'lax',
    secure,
    expires: session.expiresAt,
  });
}

export function clearSessionCookie(reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { path: DASHBOARD_COOKIE_PATH });
}
