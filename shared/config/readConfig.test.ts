import { describe, it, expect } from "vitest";
import { DEFAULT_CONFIG, MAX_HOME_RETENTION_MS, MAX_SESSION_IDLE_TTL_MS, readConfig } from "./readConfig.ts";
import { MAX_TIMER_MS } from "./timerLimits.ts";

describe("readConfig", () => {
  it("uses the documented defaults when nothing is set", () => {
    expect(readConfig({})).toEqual({
      logLevel: "info",
      keepaliveIntervalMs: 25_000,
      maxBodyBytes: 4 * 1024 * 1024,
      requestTimeoutMs: 30_000,
      maxConnectionsPerAddress: 64,
      maxArgumentBytes: 1024 * 1024,
      maxArgumentDepth: 32,
      maxArgumentValues: 10_000,
      maxQueueBytes: 4 * 1024 * 1024,
      maxQueueMessages: 1_000,
      maxConcurrentHandlers: 8,
      handlerTimeoutMs: 60_000,
      sessionIdleTtlMs: 30 * 60_000,
      maxStoredEvents: 1_000,
      maxStoredBytes: 8 * 1024 * 1024,
      sseRetryMs: 1_000,
      requestStateTtlMs: 600_000,
      taskTtlMs: 3_600_000,
      taskTimeoutMs: 600_000,
      taskPollIntervalMs: 2_000,
      taskLeaseMs: 60_000,
      maxTasks: 1_000,
      maxTasksPerClient: 100,
      maxTaskBytes: 256 * 1024 * 1024,
      maxTaskBytesPerClient: 32 * 1024 * 1024,
      maxSessions: 10_000,
      maxSessionsPerClient: 1_000,
      maxListensPerClient: 10,
      homeRetentionMs: 90 * 86_400_000,
      maxHomeBytes: 16 * 1024 * 1024,
      maxHomeKeys: 10_000,
      maxHandlesPerClient: 100,
      maxHandles: 10_000,
      allowedOrigins: [],
      allowedHosts: [],
    });
    expect(readConfig({})).toEqual(DEFAULT_CONFIG);
  });

  it("treats an empty string as unset", () => {
    expect(readConfig({ MAX_QUEUE_MESSAGES: "", LOG_LEVEL: "" })).toEqual(DEFAULT_CONFIG);
  });

  it("reads every variable from strings", () => {
    const config = readConfig({
      LOG_LEVEL: "debug",
      KEEPALIVE_INTERVAL_MS: "1000",
      MAX_BODY_BYTES: "2048",
      REQUEST_TIMEOUT_MS: "5000",
      MAX_CONNECTIONS_PER_ADDRESS: "16",
      MAX_ARGUMENT_BYTES: "1024",
      MAX_ARGUMENT_DEPTH: "8",
      MAX_ARGUMENT_VALUES: "500",
      MAX_QUEUE_BYTES: "65536",
      MAX_QUEUE_MESSAGES: "20",
      MAX_CONCURRENT_HANDLERS: "4",
      HANDLER_TIMEOUT_MS: "2000",
      SESSION_IDLE_TTL_MS: "5000",
      MAX_STORED_EVENTS: "50",
      MAX_STORED_BYTES: "100000",
      SSE_RETRY_MS: "250",
      REQUEST_STATE_TTL_MS: "30000",
      TASK_TTL_MS: "120000",
      TASK_TIMEOUT_MS: "90000",
      TASK_POLL_INTERVAL_MS: "500",
      TASK_LEASE_MS: "3000",
      MAX_TASKS: "10",
      MAX_TASKS_PER_CLIENT: "3",
      MAX_TASK_BYTES: "1000000",
      MAX_TASK_BYTES_PER_CLIENT: "100000",
      MAX_SESSIONS: "50",
      MAX_SESSIONS_PER_CLIENT: "5",
      MAX_LISTENS_PER_CLIENT: "2",
      HOME_RETENTION_MS: "86400000",
      MAX_HOME_BYTES: "65536",
      MAX_HOME_KEYS: "100",
      MAX_HANDLES_PER_CLIENT: "7",
      MAX_HANDLES: "70",
      ALLOWED_ORIGINS: "https://app.example.com",
      ALLOWED_HOSTS: "mcp.example.com",
    });
    expect(config).toEqual({
      logLevel: "debug",
      keepaliveIntervalMs: 1000,
      maxBodyBytes: 2048,
      requestTimeoutMs: 5000,
      maxConnectionsPerAddress: 16,
      maxArgumentBytes: 1024,
      maxArgumentDepth: 8,
      maxArgumentValues: 500,
      maxQueueBytes: 65536,
      maxQueueMessages: 20,
      maxConcurrentHandlers: 4,
      handlerTimeoutMs: 2000,
      sessionIdleTtlMs: 5000,
      maxStoredEvents: 50,
      maxStoredBytes: 100000,
      sseRetryMs: 250,
      requestStateTtlMs: 30000,
      taskTtlMs: 120000,
      taskTimeoutMs: 90000,
      taskPollIntervalMs: 500,
      taskLeaseMs: 3000,
      maxTasks: 10,
      maxTasksPerClient: 3,
      maxTaskBytes: 1_000_000,
      maxTaskBytesPerClient: 100_000,
      maxSessions: 50,
      maxSessionsPerClient: 5,
      maxListensPerClient: 2,
      homeRetentionMs: 86_400_000,
      maxHomeBytes: 65536,
      maxHomeKeys: 100,
      maxHandlesPerClient: 7,
      maxHandles: 70,
      allowedOrigins: ["https://app.example.com"],
      allowedHosts: ["mcp.example.com"],
    });
  });

  it("overrides one value and keeps the other defaults", () => {
    expect(readConfig({ MAX_QUEUE_MESSAGES: "50" })).toEqual({ ...DEFAULT_CONFIG, maxQueueMessages: 50 });
  });

  it("does not change DEFAULT_CONFIG", () => {
    readConfig({ MAX_BODY_BYTES: "1" });
    expect(DEFAULT_CONFIG.maxBodyBytes).toBe(4 * 1024 * 1024);
  });

  it.each(["abc", "0", "-5", "1.5", "NaN", "Infinity", "9007199254740993", " 5 ", "1e3", "0x10"])("refuses %j with a RangeError naming the variable", (raw) => {
    expect(() => readConfig({ MAX_QUEUE_BYTES: raw })).toThrow(RangeError);
    expect(() => readConfig({ MAX_QUEUE_BYTES: raw })).toThrow(`MAX_QUEUE_BYTES must be a positive integer, got ${JSON.stringify(raw)}`);
  });

  it.each(["HANDLER_TIMEOUT_MS", "SESSION_IDLE_TTL_MS", "KEEPALIVE_INTERVAL_MS", "MAX_CONCURRENT_HANDLERS"])("names %s when it is malformed", (name) => {
    expect(() => readConfig({ [name]: "soon" })).toThrow(new RegExp(`^${name} `));
  });

  it.each(["debug", "warning", "error", "emergency"])("accepts LOG_LEVEL %s", (level) => {
    expect(readConfig({ LOG_LEVEL: level }).logLevel).toBe(level);
  });

  it.each(["verbose", "INFO", "warn"])("refuses LOG_LEVEL %j", (level) => {
    expect(() => readConfig({ LOG_LEVEL: level })).toThrow(RangeError);
    expect(() => readConfig({ LOG_LEVEL: level })).toThrow(/^LOG_LEVEL /);
  });

  it("returns the same object for the same env", () => {
    const env = { MAX_QUEUE_MESSAGES: "7" };
    expect(readConfig(env)).toBe(readConfig(env));
  });

  it("reads ALLOWED_ORIGINS as a list of origins, or * for any", () => {
    expect(readConfig({ ALLOWED_ORIGINS: "https://app.example.com, http://localhost:3000/" }).allowedOrigins).toEqual([
      "https://app.example.com",
      "http://localhost:3000",
    ]);
    expect(readConfig({ ALLOWED_ORIGINS: " * " }).allowedOrigins).toBe("*");
  });

  it.each(["app.example.com", "https://app.example.com/path", "null"])("refuses the ALLOWED_ORIGINS entry %j", (entry) => {
    expect(() => readConfig({ ALLOWED_ORIGINS: entry })).toThrow(/ALLOWED_ORIGINS entries must be origins/);
  });

  it("reads ALLOWED_HOSTS as host names, IPv6 in brackets, empty for any", () => {
    expect(readConfig({}).allowedHosts).toEqual([]);
    expect(readConfig({ ALLOWED_HOSTS: "LocalHost, 127.0.0.1,[::1]" }).allowedHosts).toEqual(["localhost", "127.0.0.1", "[::1]"]);
  });

  it.each(["localhost:8787", "http://localhost", "a/b", "", "::1"])("refuses the ALLOWED_HOSTS entry %j", (entry) => {
    expect(() => readConfig({ ALLOWED_HOSTS: `localhost,${entry}` })).toThrow(/ALLOWED_HOSTS entries must be host names/);
  });

  // setTimeout stores its delay as a signed 32-bit integer: 2^31 ms would fire at once.
  it.each(["KEEPALIVE_INTERVAL_MS", "HANDLER_TIMEOUT_MS", "REQUEST_STATE_TTL_MS", "SSE_RETRY_MS", "TASK_TTL_MS", "TASK_POLL_INTERVAL_MS"])("refuses %s above MAX_TIMER_MS, naming the variable and the limit", (name) => {
    expect(() => readConfig({ [name]: "2147483648" })).toThrow(RangeError);
    expect(() => readConfig({ [name]: "2147483648" })).toThrow(new RegExp(`^${name} must be at most 2147483647 ms`));
    expect(() => readConfig({ [name]: 2_147_483_648 })).toThrow(new RegExp(`^${name} `));
  });

  it("reads TRUST_PROXY as the header a proxy puts the client's address in, in any case", () => {
    expect(readConfig({}).trustProxy).toBeUndefined();
    expect(readConfig({ TRUST_PROXY: "x-forwarded-for" }).trustProxy).toBe("x-forwarded-for");
    expect(readConfig({ TRUST_PROXY: " X-Real-IP " }).trustProxy).toBe("x-real-ip");
    expect(readConfig({ TRUST_PROXY: "CF-Connecting-IP" }).trustProxy).toBe("cf-connecting-ip");
  });

  it.each(["true", "1", "forwarded", "x-forwarded-for,x-real-ip", "host", "authorization"])("refuses TRUST_PROXY %j with a sentence naming the choices", (value) => {
    expect(() => readConfig({ TRUST_PROXY: value })).toThrow(
      `TRUST_PROXY must name the header your reverse proxy puts the client's address in: x-forwarded-for, x-real-ip or cf-connecting-ip; got ${JSON.stringify(value)}`,
    );
  });

  it("refuses TASK_TIMEOUT_MS above 14 minutes (a Durable Object's alarm handler runs at most 15), and takes exactly 14", () => {
    expect(() => readConfig({ TASK_TIMEOUT_MS: "840001" })).toThrow(/^TASK_TIMEOUT_MS must be at most 840000 ms \(14 minutes/);
    expect(readConfig({ TASK_TIMEOUT_MS: "840000" }).taskTimeoutMs).toBe(840_000);
  });

  it("accepts exactly MAX_TIMER_MS for a timer duration", () => {
    expect(readConfig({ HANDLER_TIMEOUT_MS: String(MAX_TIMER_MS) }).handlerTimeoutMs).toBe(2_147_483_647);
  });

  it("accepts a 30-day SESSION_IDLE_TTL_MS, beyond one timer's reach", () => {
    const thirtyDaysMs = 30 * 24 * 60 * 60 * 1000;
    expect(thirtyDaysMs).toBeGreaterThan(MAX_TIMER_MS);
    expect(readConfig({ SESSION_IDLE_TTL_MS: String(thirtyDaysMs) }).sessionIdleTtlMs).toBe(thirtyDaysMs);
  });

  it("refuses SESSION_IDLE_TTL_MS above a year, naming the variable and the limit", () => {
    expect(MAX_SESSION_IDLE_TTL_MS).toBe(365 * 24 * 60 * 60 * 1000);
    expect(readConfig({ SESSION_IDLE_TTL_MS: String(MAX_SESSION_IDLE_TTL_MS) }).sessionIdleTtlMs).toBe(MAX_SESSION_IDLE_TTL_MS);
    expect(() => readConfig({ SESSION_IDLE_TTL_MS: String(MAX_SESSION_IDLE_TTL_MS + 1) })).toThrow(
      new RegExp(`^SESSION_IDLE_TTL_MS must be at most ${MAX_SESSION_IDLE_TTL_MS} ms`),
    );
  });

  it("keeps a home up to ten years unused, not a day more", () => {
    expect(readConfig({ HOME_RETENTION_MS: String(MAX_HOME_RETENTION_MS) }).homeRetentionMs).toBe(MAX_HOME_RETENTION_MS);
    expect(() => readConfig({ HOME_RETENTION_MS: String(MAX_HOME_RETENTION_MS + 1) })).toThrow(`HOME_RETENTION_MS must be at most ${MAX_HOME_RETENTION_MS} ms (ten years)`);
  });
});
