/** Escapes LIKE/ILIKE wildcards (`%`, `_`) and the escape character itself (`\`, PostgreSQL's default). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
