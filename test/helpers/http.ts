// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON documents and assert on them.
export type Json = any;

export async function readJson(response: Response): Promise<Json> {
  return response.json();
}
