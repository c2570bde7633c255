const KEY = /svc_(test|live)_[A-Za-z0-9_-]+/g;

/** Replaces anything that looks like an API key, so a key pasted into a URL never reaches a log. */
export function redactKeys(text: string): string {
  return text.replace(KEY, 'svc_$1_[redacted]');
}
