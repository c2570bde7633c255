import { type Html, html } from '../html.js';
import { errorSummary, layout, type PageContext } from '../layout.js';

export function signInPage(
  page: PageContext,
  input: { email?: string; error?: string; next?: string },
): Html {
  return layout(
    page,
    html`<h1>Sign in</h1>
    ${errorSummary(input.error)}
    <form class="stack" method="post" action="/dashboard/sign-in">
      <input type="hidden" name="_csrf" value="${page.csrfToken}">
      ${input.next && html`<input type="hidden" name="next" value="${input.next}">`}
      <div>
        <label for="email">Email address</label>
        <input type="email" id="email" name="email" autocomplete="username" required value="${input.email ?? ''}">
      </div>
      <div>
        <label for="password">Password</label>
        <input type="password" id="password" name="password" autocomplete="current-password" required>
      </div>
      <button type="submit">Sign in</button>
    </form>`,
  );
}
