/**
 * One JSON POST on the given agent's kept-alive connections, resolving with the status, the
 * headers and the whole body as text: the benchmarks' client, which checks every answer itself.
 */
import { request } from "node:http";

/** @returns {Promise<{ status: number | undefined, headers: import("node:http").IncomingHttpHeaders, text: string }>} */
export function postJson(agent, url, headers, body) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", agent, headers: { "content-type": "application/json", ...headers } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}
