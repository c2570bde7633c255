const KEY = /svc_(test|live)_[A-Za-z0-9_-]+/g;
const KEY_START = /svc_(test|live)_/;

/** Whether `text` carries what looks like an API key (a URL that must be refused, say). */
export function containsApiKey(text: string): boolean {
  return KEY_START.test(text);
}

/** Replaces anything that looks like an API key, so a key pasted into a URL never reaches a log. */
export function redactKeys(text: string): string {
  return text.replace(KEY, 'svc_$1_[redacted]');
}
