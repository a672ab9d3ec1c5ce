/** Whether a token's scopes include every one of `needed` (none needed: always; no token: only then). */
export function grants(auth: { readonly scopes: readonly string[] } | undefined, needed: readonly string[] | undefined): boolean {
  if (!needed || needed.length === 0) return true;
  return auth !== undefined && needed.every((scope) => auth.scopes.includes(scope));
}

/** The scopes of `needed` that `granted` lacks, as a message names them ("the scope a", "the scopes a b"); "" when none. */
export function lacking(needed: readonly string[], granted: readonly string[]): string {
  const missing = needed.filter((scope) => !granted.includes(scope));
  if (missing.length === 0) return "";
  return `the scope${missing.length > 1 ? "s" : ""} ${missing.join(" ")}`;
}
