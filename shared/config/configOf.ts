/**
 * `readConfig` once per environment object (a Worker's or Durable Object's `env`, a process's
 * variables), for code that has only a handler's `ctx.env` at hand and runs per request: reading
 * and validating every variable again on each call would cost more than the call.
 */
import { type Config, readConfig } from "./readConfig.ts";

const configs = new WeakMap<object, Config>();

/** @throws as `readConfig` does, for a malformed variable (each time, since nothing is kept then). */
export function configOf(env: Readonly<Record<string, unknown>>): Config {
  let config = configs.get(env);
  if (!config) configs.set(env, (config = readConfig(env)));
  return config;
}
