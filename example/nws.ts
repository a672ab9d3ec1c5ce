/**
 * A small client for the US National Weather Service API (https://www.weather.gov/documentation/services-web-api),
 * used by the example weather tools. The base URL comes from `NWS_BASE_URL`, so tests point it
 * at a local server replaying recorded responses. Failures come back as readable `Error`s, which
 * the tool turns into `isError` results.
 *
 * The forecast URL is taken from the `/points` answer, as NWS documents, but only if it is on the
 * same origin as the base URL: a tool must not be steerable into fetching arbitrary hosts.
 */

/** NWS asks every client to identify itself; requests without a User-Agent are refused. */
const USER_AGENT = "durable-mcp-example/0.1";
/** An upstream that does not answer within this long is reported as down. */
export const UPSTREAM_TIMEOUT_MS = 10_000;
const MAX_PERIODS = 5;

interface AlertFeature {
  properties: { event?: string; areaDesc?: string; severity?: string; headline?: string; description?: string; instruction?: string | null };
}
interface ForecastPeriod {
  name: string;
  temperature: number;
  temperatureUnit: string;
  windSpeed: string;
  windDirection: string;
  detailedForecast: string;
}

/** The active alerts for a two-letter state or territory code. */
export async function activeAlerts(base: string, state: string, signal: AbortSignal): Promise<AlertFeature["properties"][]> {
  const body = await getJson<{ features?: AlertFeature[] }>(new URL(`/alerts/active?area=${state}`, base), signal);
  return (body.features ?? []).map((feature) => feature.properties);
}

export async function alertsFor(base: string, state: string, signal: AbortSignal): Promise<string> {
  const alerts = await activeAlerts(base, state, signal);
  if (alerts.length === 0) return `No active alerts for ${state}.`;
  return alerts
    .map((p) =>
      [
        `Event: ${p.event ?? "Unknown"}`,
        `Area: ${p.areaDesc ?? "Unknown"}`,
        `Severity: ${p.severity ?? "Unknown"}`,
        `Description: ${p.description ?? "None"}`,
        `Instructions: ${p.instruction ?? "None"}`,
      ].join("\n"),
    )
    .join("\n---\n");
}

export async function forecastFor(base: string, latitude: number, longitude: number, signal: AbortSignal): Promise<string> {
  const point = `${latitude.toFixed(4)},${longitude.toFixed(4)}`;
  const points = await getJson<{ properties?: { forecast?: string } }>(new URL(`/points/${point}`, base), signal, () =>
    `The National Weather Service has no forecast for ${point}; it covers US locations only.`,
  );
  const forecastUrl = points.properties?.forecast;
  if (!forecastUrl) throw new Error(`The National Weather Service answered /points/${point} without a forecast URL.`);
  const url = new URL(forecastUrl, base);
  if (url.origin !== new URL(base).origin) throw new Error(`Refusing to follow a forecast URL on another host: ${url.origin}`);

  const forecast = await getJson<{ properties?: { periods?: ForecastPeriod[] } }>(url, signal);
  const periods = forecast.properties?.periods ?? [];
  if (periods.length === 0) return `No forecast periods for ${point}.`;
  return periods
    .slice(0, MAX_PERIODS)
    .map((p) => `${p.name}:\nTemperature: ${p.temperature}°${p.temperatureUnit}\nWind: ${p.windSpeed} ${p.windDirection}\n${p.detailedForecast}`)
    .join("\n---\n");
}

async function getJson<T>(url: URL, signal: AbortSignal, notFound?: () => string): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { "user-agent": USER_AGENT, accept: "application/geo+json" },
      signal: AbortSignal.any([signal, AbortSignal.timeout(UPSTREAM_TIMEOUT_MS)]),
    });
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw new Error(`Could not reach the National Weather Service (${url.origin}): ${(error as Error).message}`);
  }
  if (response.status === 404 && notFound) throw new Error(notFound());
  if (!response.ok) {
    throw new Error(`The National Weather Service answered ${response.status} ${response.statusText} for ${url.pathname}.`);
  }
  try {
    return (await response.json()) as T;
  } catch {
    throw new Error(`The National Weather Service sent a response for ${url.pathname} that is not JSON.`);
  }
}
