/**
 * Handles inside real workerd: each user's handles counted as a fair share in their home object
 * (`share:handle:<id>`), refused past MAX_HANDLES_PER_CLIENT (3 here) with a tool error while
 * another user is served; `deleteUserData` erasing the handles minted for the user with their
 * home; a handle bound to the definition that minted it; `ctx.revokeHandle()`. Each ending is
 * checked by listing the objects' storage afterwards.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { ISSUER, worker } from "./homeWorker.ts";
import { handleHome, modern, startIssuer, streamable, text, userHome } from "./signedIn.ts";

type Stub = Awaited<ReturnType<typeof userHome>>;
const keysOf = (stub: Stub) => runInDurableObject(stub, async (_i, state) => [...(await state.storage.list()).keys()].sort());
const alarmOf = (stub: Stub) => runInDurableObject(stub, (_i, state) => state.storage.getAlarm());
const someone = (label: string) => `${label}-${crypto.randomUUID()}`;
const unknown = (tool: string, id: string) => `Unknown handle ${JSON.stringify(id)}: it was never made, has expired unused, or is not yours. Call ${tool} without it to start a new one.`;

/** Opens a notebook for `subject` with one note: its handle. */
async function openNotebook(subject: string, note = "n"): Promise<string> {
  return /notebook ([0-9a-f]{32})/.exec(text(await modern(subject, "tools/call", { name: "notebook", arguments: { action: "add", text: note } })))![1]!;
}

beforeAll(startIssuer);

describe("handles on Workers", () => {
  it("refuses a user's new handle past MAX_HANDLES_PER_CLIENT with a tool error, keeping nothing, while another user is served", async () => {
    const hoarder = someone("hoarder");
    const handles = [await openNotebook(hoarder), await openNotebook(hoarder), await openNotebook(hoarder)];
    const refused = await modern(hoarder, "tools/call", { name: "notebook", arguments: { action: "add", text: "one too many" } });
    expect(refused).toMatchObject({ isError: true, content: [{ text: "This client holds 3 handles, the most one client may hold at once (MAX_HANDLES_PER_CLIENT); retry after 60s" }] });
    // The holdings are the user's home's keys, one per handle kept: the refused one has none.
    expect(await keysOf(await userHome(hoarder))).toEqual(handles.map((id) => `share:handle:${id}`).sort());
    // A call that only reads needs no share; another user has their own.
    expect(text(await modern(hoarder, "tools/call", { name: "notebook", arguments: { action: "list" } }))).toMatch(/^The note pad is empty/);
    expect(await openNotebook(someone("frugal"))).toMatch(/^[0-9a-f]{32}$/);
  });

  it("erases the handles minted for a user with their home on deleteUserData: each unknown after, every object at zero keys", async () => {
    const patient = someone("patient");
    const session = await streamable(patient);
    await session.call("notepad", { action: "add", text: "my diagnosis is X" });
    const handle = await openNotebook(patient, "my diagnosis is X");
    const other = someone("other");
    const kept = await openNotebook(other);
    await worker.deleteUserData(env, { issuer: ISSUER, subject: patient });
    expect(await modern(patient, "tools/call", { name: "notebook", arguments: { notebook: handle, action: "list" } })).toMatchObject({ isError: true, content: [{ text: unknown("notebook", handle) }] });
    expect(await keysOf(handleHome(handle))).toEqual([]);
    expect(await alarmOf(handleHome(handle))).toBeNull();
    expect(await keysOf(await userHome(patient))).toEqual([]);
    expect(await alarmOf(await userHome(patient))).toBeNull();
    expect(text(await modern(other, "tools/call", { name: "notebook", arguments: { notebook: kept, action: "list" } }))).toBe("1. n");
  });

  it("answers a handle as unknown to another definition than the one that minted it", async () => {
    const owner = someone("owner");
    const jar = JSON.parse(text(await modern(owner, "tools/call", { name: "jar", arguments: { text: "secret" } }))).jar as string;
    expect(await modern(owner, "tools/call", { name: "jar_peek", arguments: { jar } })).toMatchObject({ isError: true, content: [{ text: unknown("jar_peek", jar) }] });
    expect(text(await modern(owner, "tools/call", { name: "jar", arguments: { jar } }))).toBe(JSON.stringify({ jar, text: "secret" }));
  });

  it("revokes a handle at once with ctx.revokeHandle(): unknown from then on, its object and its share gone", async () => {
    const closer = someone("closer");
    const jar = JSON.parse(text(await modern(closer, "tools/call", { name: "jar", arguments: { text: "brief" } }))).jar as string;
    expect(await keysOf(await userHome(closer))).toEqual([`share:handle:${jar}`]);
    expect(text(await modern(closer, "tools/call", { name: "jar", arguments: { jar, close: true } }))).toBe("closed");
    expect(await modern(closer, "tools/call", { name: "jar", arguments: { jar } })).toMatchObject({ isError: true, content: [{ text: unknown("jar", jar) }] });
    expect(await keysOf(handleHome(jar))).toEqual([]);
    expect(await alarmOf(handleHome(jar))).toBeNull();
    expect(await keysOf(await userHome(closer))).toEqual([]);
  });
});
