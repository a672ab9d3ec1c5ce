/**
 * The example's Agent Skill (Skills extension, SEP-2640): how a model should use this server's
 * weather tools, served as `skill://weather-alerts/SKILL.md` with one reference file. Hosts list
 * it with `skills/list` and load it when a person asks about the weather.
 */
import { skill } from "durable-mcp";

const BODY = `# Weather alerts and forecasts

Use this server's tools to answer questions about US weather alerts and forecasts.

## Which tool

- One state's alerts: call \`getAlerts\` with its two-letter code (\`{ "state": "CA" }\`).
- Several states at once: call \`alertSweep\` with up to 80 codes. It is slow; a client that
  supports tasks gets a task to poll.
- A forecast: call \`getWeatherForecastByLocation\` with a latitude and longitude in decimal
  degrees. Only US locations have forecasts.
- A board the person keeps watching: call \`alertBoard\`, with \`states\` to pick them (at most 8).
  Hosts that render views show it, and the person picks states on it; the pick is kept for them.

## Good answers

- Codes are two letters: look them up in [the state codes](references/STATES.md) when the person
  names a state. Marine areas and territories other than DC and Puerto Rico are not covered.
- Say when a state has no active alerts; do not guess at alerts the tools did not return.
- Give the event, the severity and the headline of each alert; the full description only on request.
`;

const STATES = `# State codes

| Code | State | Code | State | Code | State |
| ---- | ----- | ---- | ----- | ---- | ----- |
| AL | Alabama | KY | Kentucky | ND | North Dakota |
| AK | Alaska | LA | Louisiana | OH | Ohio |
| AZ | Arizona | ME | Maine | OK | Oklahoma |
| AR | Arkansas | MD | Maryland | OR | Oregon |
| CA | California | MA | Massachusetts | PA | Pennsylvania |
| CO | Colorado | MI | Michigan | PR | Puerto Rico |
| CT | Connecticut | MN | Minnesota | RI | Rhode Island |
| DE | Delaware | MS | Mississippi | SC | South Carolina |
| DC | District of Columbia | MO | Missouri | SD | South Dakota |
| FL | Florida | MT | Montana | TN | Tennessee |
| GA | Georgia | NE | Nebraska | TX | Texas |
| HI | Hawaii | NV | Nevada | UT | Utah |
| ID | Idaho | NH | New Hampshire | VT | Vermont |
| IL | Illinois | NJ | New Jersey | VA | Virginia |
| IN | Indiana | NM | New Mexico | WA | Washington |
| IA | Iowa | NY | New York | WV | West Virginia |
| KS | Kansas | NC | North Carolina | WI | Wisconsin |
|    |        |    |                | WY | Wyoming |
`;

export const weatherSkill = skill({
  frontmatter: {
    name: "weather-alerts",
    description: "Answer questions about US weather alerts and forecasts with this server's tools: which tool to call, with which codes, and how to report the results.",
    license: "MIT",
  },
  body: BODY,
  files: { "references/STATES.md": STATES },
});
