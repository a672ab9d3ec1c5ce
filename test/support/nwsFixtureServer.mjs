/**
 * A local stand-in for api.weather.gov, serving `test/fixtures/nws/`. Tests point the Worker's
 * NWS_BASE_URL at it. `mode: "down"` answers 503 to everything, to test upstream failure;
 * `downAreas` answers 503 to the alerts of those states only (read at each request, so a test may
 * change it), to test one failing among several.
 *
 * Routes: /points/39.7456,-97.0892 (Linn, KS) → points.json; any other /points → 404 as NWS does
 * for places outside the US; /gridpoints/TOP/32,81/forecast → forecast.json;
 * /alerts/active?area=CA → alerts-CA.json; any other area → an empty FeatureCollection.
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";

const DIR = fileURLToPath(new URL("../fixtures/nws/", import.meta.url));
const read = (name) => readFileSync(DIR + name, "utf8");

/**
 * @param {{ mode?: "up" | "down", downAreas?: string[] }} [options]
 * @returns {Promise<{ url: string, requests: string[], close(): Promise<void> }>}
 */
export async function startNwsFixtureServer({ mode = "up", downAreas = [] } = {}) {
  const requests = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url} ua=${req.headers["user-agent"]}`);
    const origin = `http://${req.headers.host}`;
    const url = new URL(req.url, origin);
    const send = (status, body) => {
      res.writeHead(status, { "content-type": "application/geo+json" });
      res.end(body);
    };
    if (mode === "down") return send(503, JSON.stringify({ title: "Service Unavailable", status: 503 }));
    if (url.pathname === "/points/39.7456,-97.0892") {
      return send(200, read("points.json").replaceAll("https://api.weather.gov", origin));
    }
    if (url.pathname.startsWith("/points/")) {
      return send(404, JSON.stringify({ title: "Data Unavailable For Requested Point", status: 404 }));
    }
    if (url.pathname === "/gridpoints/TOP/32,81/forecast") return send(200, read("forecast.json"));
    if (url.pathname === "/alerts/active") {
      const area = url.searchParams.get("area");
      if (downAreas.includes(area)) return send(503, JSON.stringify({ title: "Service Unavailable", status: 503 }));
      if (area === "CA") return send(200, read("alerts-CA.json"));
      return send(200, JSON.stringify({ type: "FeatureCollection", features: [] }));
    }
    send(404, JSON.stringify({ title: "Not Found", status: 404 }));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
