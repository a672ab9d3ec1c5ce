/**
 * The provider's JSON answer with its document changed by `amend`: the status and headers kept,
 * less `Content-Length`, which the new body sets. An answer that is not a success, or not JSON
 * (a revocation's empty 200), goes out as it came.
 *
 * Not here: what is changed (the metadata's additions, a token's `token_type`).
 */
export async function amendJson(response: Response, amend: (document: Record<string, unknown>) => Record<string, unknown>): Promise<Response> {
  if (!response.ok || !/json/i.test(response.headers.get("content-type") ?? "")) return response;
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return Response.json(amend((await response.json()) as Record<string, unknown>), { status: response.status, headers });
}
