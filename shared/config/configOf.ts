/**
 * `readConfig` once per environment object (a Worker's or Durable Object's `env`, a process's
 * variables), for code that has only a handler's `ctx.env` at hand and runs per request: reading
 * and validating every variable again on each call would cost more than the call.
 */
import { type Config, readConfig } from "./readConfig.ts";

const configs = new WeakMap<object, Config>();
/** The environment of a context made by hand (a unit test of one's own tool): the defaults. */
const NONE = {};

/** @throws as `readConfig` does, for a malformed variable (each time, since nothing is kept then). */
export function configOf(given: Readonly<Record<string, unknown>> | undefined): Config {
  const env = given ?? NONE;
  let config = configs.get(env);
  if (!config) configs.set(env, (config = readConfig(env)));
  return config;
}
