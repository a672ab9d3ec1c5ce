/**
 * A Chrome DevTools protocol session with workerd's inspector (`startWorkerd({ inspectorPort })`),
 * for the benchmarks that look inside the isolate: CPU profiles (`profile.mjs`), live heap after a
 * collection (`flood.mjs`). Node 20 needs `--experimental-websocket` for `WebSocket`.
 *
 * @example const inspector = await openInspector(9229); await inspector.send("HeapProfiler.collectGarbage"); inspector.close();
 */
export async function openInspector(port) {
  const socket = new WebSocket(`ws://127.0.0.1:${port}/main`);
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve, { once: true });
    socket.addEventListener("error", reject, { once: true });
  });
  let next = 0;
  const pending = new Map();
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    pending.get(message.id)?.(message.result);
    pending.delete(message.id);
  });
  return {
    send: (method, params = {}) =>
      new Promise((resolve) => {
        const id = ++next;
        pending.set(id, resolve);
        socket.send(JSON.stringify({ id, method, params }));
      }),
    close: () => socket.close(),
  };
}
