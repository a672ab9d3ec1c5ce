/**
 * `GET /health`: readiness for load balancers and monitors. 200 `{"status":"ok"}` while the
 * deployment can serve MCP; 503 `{"status":"unavailable","problem":…}` while every MCP request
 * would be refused with a 500 (a definition that cannot be served, homes it cannot host, a
 * variable that cannot be used, a token check without the `resource` this host needs), naming
 * the problem the MCP answers carry. It touches no session, home or storage: it is not a probe
 * of the platform, only of what this deployment was given.
 */

/** The answer for a deployment whose `problem` (undefined: none) keeps it from serving MCP. */
export function health(problem: Error | undefined): Response {
  if (problem === undefined) return Response.json({ status: "ok" });
  // Never cached: a monitor must see the deployment recover as soon as it does.
  return Response.json({ status: "unavailable", problem: problem.message }, { status: 503, headers: { "cache-control": "no-store" } });
}
