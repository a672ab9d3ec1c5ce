/**
 * What the e2e servers leave unprinted and what a captured test must account for
 * (`scripts/clientLeftReport.mjs`, `test/support/serverLogs.ts`), on lines as workerd and the
 * Workers write them: only workerd's report of a client that left (and its stack line) is dropped.
 */
import { describe, expect, it } from "vitest";
import { clientLeftFilter } from "../../scripts/clientLeftReport.mjs";
import { unexplained } from "../support/serverLogs.ts";

/** As workerd 1.2026 prints it when an HTTP+SSE client closes its stream mid-write. */
const CLIENT_LEFT = "workerd/server/server.c++:5351: error: kj::getCaughtExceptionAsKj() = kj/async-io-unix.c++:186: disconnected: ::write(fd, buffer.begin(), buffer.size()): Broken pipe";
/** The same report when the client reset its connection instead of closing it (seen in sdkClient.test.ts's run). */
const CLIENT_RESET = "workerd/server/server.c++:5351: error: kj::getCaughtExceptionAsKj() = kj/async-io-unix.c++:186: disconnected: ::write(fd, buffer.begin(), buffer.size()): Connection reset by peer";
const STACK = "stack: /work/main/node_modules/@cloudflare/workerd-linux-64/bin/workerd@51faac1 /work/main/node_modules/@cloudflare/workerd-linux-64/bin/workerd@51fb771";
const HANDLER_ERROR = '{"level":"error","event":"handler.error","session":"e7f1cd000a57","id":"4","method":"tools/call","tool":"getAlerts","error":"Error","message":"boom","stack":["Error: boom"]}';
const UNCAUGHT = "workerd/io/io-context.c++:445: info: uncaught exception; exception = workerd/jsg/value.h:1480: failed: jsg.Error: boom in fetch";
const ALARM = "workerd/io/actor-sqlite.c++:970: warning: NOSENTRY SQLite alarm handler canceled with requestScheduledAlarm.; scheduledTime = 1795630796.99s";

describe("clientLeftFilter", () => {
  it("drops the client-left report and the stack line after it, and nothing else", () => {
    expect([HANDLER_ERROR, CLIENT_LEFT, STACK, UNCAUGHT, STACK, "console line"].filter(clientLeftFilter())).toEqual([HANDLER_ERROR, UNCAUGHT, STACK, "console line"]);
  });

  it("drops the report of a client that reset its connection mid-write, and the stack lines after it", () => {
    expect([HANDLER_ERROR, CLIENT_RESET, STACK, STACK, UNCAUGHT, STACK].filter(clientLeftFilter())).toEqual([HANDLER_ERROR, UNCAUGHT, STACK]);
  });
});

describe("unexplained", () => {
  it("leaves out the expected events, the expected reports and clients that left; keeps every other line", () => {
    const lines = [HANDLER_ERROR, CLIENT_LEFT, STACK, ALARM, UNCAUGHT, STACK, '{"level":"error","event":"rpc.failed"}', "not json {"];
    expect(unexplained(lines, { events: ["handler.error"], reports: [/SQLite alarm handler canceled/] })).toEqual([UNCAUGHT, STACK, '{"level":"error","event":"rpc.failed"}', "not json {"]);
    expect(unexplained(lines)).toEqual([HANDLER_ERROR, ALARM, UNCAUGHT, STACK, '{"level":"error","event":"rpc.failed"}', "not json {"]);
  });

  it("counts a client that reset its connection as explained, as sdkClient.test.ts's afterAll did not", () => {
    expect(unexplained([HANDLER_ERROR, CLIENT_RESET, STACK], { events: ["handler.error"] })).toEqual([]);
  });
});
