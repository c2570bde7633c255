import { type Asset, asset } from './asset.js';
import { FAVICON_SVG, ICON_CACHE_CONTROL } from './favicon.js';
import { PLAYGROUND_ASSETS } from './pages/playground-assets.js';

/**
 * The dashboard's only assets, kept in the module so that they ship inside dist/ with the code
 * (the package publishes dist/, and tsc copies no other files): no CDN, no asset build step.
 */
const CSS = `
:root { --ink: #1b1f24; --muted: #4a5360; --line: #c9ced6; --accent: #0b5cad; --bad: #a4161a;
  --paper: #ffffff; --soft: #f3f5f8; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: var(--paper); line-height: 1.5; }
a { color: var(--accent); }
a:focus, button:focus, input:focus, select:focus { outline: 3px solid #ffbf47; outline-offset: 1px; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: 1rem; background: var(--paper); padding: .5rem; }
/* One row at 1280 px: the select and the address are capped, so a long workspace name or email
   cannot push "Sign out" onto a row of its own; narrower screens wrap. */
header.top { background: #15212f; color: #fff; padding: .625rem 1rem; display: flex; flex-wrap: wrap;
  gap: .5rem .625rem; align-items: center; font-size: .875rem; }
header.top a { color: #fff; white-space: nowrap; }
header.top .brand { font-weight: 700; font-size: 1rem; text-decoration: none; margin-right: auto; }
header.top nav ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap;
  gap: .25rem .625rem; }
header.top form { margin: 0; display: flex; gap: .375rem; align-items: center; }
header.top select { font-size: .875rem; width: auto; max-width: 10rem; padding: .15rem; border-width: 1px; }
header.top button { background: transparent; color: #fff; border: 1px solid #fff; padding: .2rem .625rem;
  white-space: nowrap; }
/* A long address is cut on screen (its title and the link's name keep all of it). */
header.top .account { display: flex; gap: .25rem; min-width: 0; max-width: 14rem; white-space: nowrap; }
header.top .account a { overflow: hidden; text-overflow: ellipsis; }
main { max-width: 64rem; margin: 0 auto; padding: 1.5rem 1rem 3rem; }
h1 { font-size: 1.75rem; margin: 0 0 1rem; }
h2 { font-size: 1.25rem; margin: 2rem 0 .75rem; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--soft); }
code, .key { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; overflow-wrap: anywhere; }
.key { display: block; padding: .75rem; background: var(--soft); border: 1px solid var(--line);
  font-size: 1.05rem; margin: .5rem 0; }
form.stack > div, fieldset { margin: 0 0 1rem; }
/* A list's filters in a row that wraps, the button on the fields' baseline. */
form.filters { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: flex-end; margin: 0 0 .5rem; }
form.filters input[type=text], form.filters select { width: 14rem; }
form.filters .hint { flex-basis: 100%; order: 1; }
fieldset { border: 1px solid var(--line); padding: .5rem 1rem; }
label { display: block; font-weight: 600; }
fieldset label { display: inline; font-weight: 400; margin-left: .25rem; }
input[type=text], input[type=email], input[type=password], select { font: inherit; padding: .4rem;
  border: 2px solid var(--muted); width: 100%; max-width: 24rem; }
button { font: inherit; padding: .45rem 1rem; border: 0; background: var(--accent); color: #fff;
  cursor: pointer; }
button.danger { background: var(--bad); }
.hint { color: var(--muted); margin: .25rem 0; }
.error-summary { border: 4px solid var(--bad); padding: .75rem 1rem; margin-bottom: 1.5rem; overflow-wrap: anywhere; }
.error-summary h2 { margin-top: 0; }
.warning { border-left: 6px solid #b35c00; background: #fff7e6; padding: .75rem 1rem; }
.revoked { color: var(--muted); }
.muted { color: var(--muted); }
`;

// Copies the text of the element named by data-copy-target; works on any page, so no inline script
// is ever needed (the Content-Security-Policy allows scripts from this origin only).
const COPY_JS = `
document.addEventListener('click', function (event) {
  var button = event.target.closest('[data-copy-target]');
  if (!button) return;
  var source = document.getElementById(button.getAttribute('data-copy-target'));
  if (!source || !navigator.clipboard) return;
  navigator.clipboard.writeText(source.textContent.trim()).then(function () {
    var status = document.getElementById(button.getAttribute('data-copy-status'));
    if (status) status.textContent = 'Copied to the clipboard.';
  });
});
`;

export const ASSETS: Record<string, Asset> = {
  'dashboard.css': asset(CSS, 'text/css; charset=utf-8'),
  'copy.js': asset(COPY_JS, 'text/javascript; charset=utf-8'),
  // Asked for on every page, signed in or not: kept by the browser instead of revalidated.
  'favicon.svg': asset(FAVICON_SVG, 'image/svg+xml', ICON_CACHE_CONTROL),
  ...PLAYGROUND_ASSETS,
};
