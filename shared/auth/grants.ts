/** Whether a token's scopes include every one of `needed` (none needed: always; no token: only then). */
export function grants(auth: { readonly scopes: readonly string[] } | undefined, needed: readonly string[] | undefined): boolean {
  if (!needed || needed.length === 0) return true;
  return auth !== undefined && needed.every((scope) => auth.scopes.includes(scope));
}
