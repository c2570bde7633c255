/** Where sign-in (or a forced password change) may return to: a dashboard page of this origin only. */
export function returnPath(next: string | undefined): string | undefined {
  return next && /^\/dashboard\/[^/\\]/.test(next) ? next : undefined;
}

/** The account page, which returns to `next` (a dashboard path) once the password is changed. */
export function accountPath(next: string | undefined): string {
  const back = returnPath(next);
  return back ? `/dashboard/account?next=${encodeURIComponent(back)}` : '/dashboard/account';
}
