/**
 * The alert board's view: one HTML document, its style and script inline (no framework, no CDN,
 * nothing fetched). It speaks the MCP Apps protocol to its host over `postMessage` (SEP-1865
 * "Lifecycle"): `ui/initialize`, then `ui/notifications/initialized`; it renders the board from
 * each `ui/notifications/tool-result`, calls `pickAlertStates` through the host (`tools/call`)
 * when a state is clicked, reports its size, and answers `ping` and `ui/resource-teardown`.
 */

/** The 50 states, DC and Puerto Rico: the codes a person can pick. */
const CODES = "AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA PR RI SC SD TN TX UT VT VA WA WV WI WY";

export const BOARD_HTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Weather alert board</title>
<style>
  :root { color-scheme: light dark; font-family: var(--font-sans, system-ui, sans-serif); font-size: 14px; }
  body { margin: 0; padding: 12px; background: var(--color-background-primary, Canvas); color: var(--color-text-primary, CanvasText); }
  h1 { font-size: 16px; margin: 0 0 8px; }
  #status { color: var(--color-text-secondary, GrayText); margin: 0 0 8px; }
  #codes { display: flex; flex-wrap: wrap; gap: 4px; margin-bottom: 12px; }
  #codes button { font: inherit; padding: 2px 6px; border-radius: var(--border-radius-sm, 4px); border: 1px solid var(--color-border-primary, GrayText); background: none; color: inherit; cursor: pointer; }
  #codes button[aria-pressed="true"] { background: var(--color-background-info, #1d4ed8); color: var(--color-text-inverse, #fff); }
  .state { border-top: 1px solid var(--color-border-secondary, #8884); padding: 6px 0; }
  .state h2 { font-size: 14px; margin: 0 0 4px; }
  .state li { margin: 2px 0; }
  .none { color: var(--color-text-secondary, GrayText); }
</style>
</head>
<body>
<h1>Weather alert board</h1>
<p id="status">Waiting for the board…</p>
<div id="codes" role="group" aria-label="States"></div>
<div id="board"></div>
<script>
(() => {
  const CODES = "${CODES}".split(" ");
  const MAX = 8;
  const pending = new Map();
  let nextId = 1;
  let picked = [];
  const send = (message) => window.parent.postMessage({ jsonrpc: "2.0", ...message }, "*");
  const request = (method, params) => new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    send({ id, method, params });
  });
  const status = (text) => { document.getElementById("status").textContent = text; };

  function render(board) {
    picked = board.picked || [];
    const kept = { user: "Your pick is kept for you across chats.", session: "Your pick is kept for this session.", none: "Your pick is not kept (no session, no sign-in)." }[board.kept] || "";
    status(picked.length ? kept : "Pick up to " + MAX + " states. " + kept);
    const codes = document.getElementById("codes");
    codes.replaceChildren(...CODES.map((code) => {
      const button = document.createElement("button");
      button.textContent = code;
      button.setAttribute("aria-pressed", String(picked.includes(code)));
      button.addEventListener("click", () => toggle(code));
      return button;
    }));
    document.getElementById("board").replaceChildren(...(board.states || []).map((state) => {
      const section = document.createElement("section");
      section.className = "state";
      section.dataset.code = state.code;
      const title = document.createElement("h2");
      title.textContent = state.code + ": " + state.total + " active alert" + (state.total === 1 ? "" : "s");
      section.append(title);
      if (state.alerts.length === 0) {
        const none = document.createElement("p");
        none.className = "none";
        none.textContent = "No active alerts.";
        section.append(none);
      } else {
        const list = document.createElement("ul");
        for (const alert of state.alerts) {
          const item = document.createElement("li");
          item.textContent = alert.event + " (" + alert.severity + ")" + (alert.headline ? ": " + alert.headline : "");
          list.append(item);
        }
        section.append(list);
      }
      return section;
    }));
  }

  async function toggle(code) {
    const next = picked.includes(code) ? picked.filter((c) => c !== code) : [...picked, code];
    if (next.length > MAX) return status("At most " + MAX + " states: remove one first.");
    status("Updating…");
    try {
      const result = await request("tools/call", { name: "pickAlertStates", arguments: { states: next } });
      if (result.isError) return status((result.content && result.content[0] && result.content[0].text) || "The board could not be updated.");
      render(result.structuredContent);
    } catch (error) {
      status("The board could not be updated: " + (error && error.message ? error.message : String(error)));
    }
  }

  let sizeTimer;
  const reportSize = () => {
    clearTimeout(sizeTimer);
    sizeTimer = setTimeout(() => send({ method: "ui/notifications/size-changed", params: { width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight } }), 100);
  };

  window.addEventListener("message", (event) => {
    if (event.source !== window.parent) return;
    const message = event.data;
    if (!message || message.jsonrpc !== "2.0") return;
    if (message.id !== undefined && !message.method) {
      const waiting = pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id);
      return message.error ? waiting.reject(new Error(message.error.message)) : waiting.resolve(message.result);
    }
    if (message.method === "ui/notifications/tool-result") {
      if (message.params && message.params.structuredContent) render(message.params.structuredContent);
      else status((message.params && message.params.content && message.params.content[0] && message.params.content[0].text) || "No board.");
    } else if (message.method === "ui/notifications/host-context-changed" && message.params && message.params.theme) {
      document.documentElement.style.colorScheme = message.params.theme;
    } else if (message.id !== undefined && (message.method === "ping" || message.method === "ui/resource-teardown")) {
      send({ id: message.id, result: {} });
    } else if (message.id !== undefined) {
      send({ id: message.id, error: { code: -32601, message: "The board does not handle " + message.method } });
    }
  });

  new ResizeObserver(reportSize).observe(document.documentElement);
  request("ui/initialize", { protocolVersion: "2026-01-26", appInfo: { name: "alert-board", version: "1.0.0" }, appCapabilities: {} })
    .then((result) => {
      const theme = result && result.hostContext && result.hostContext.theme;
      if (theme) document.documentElement.style.colorScheme = theme;
      send({ method: "ui/notifications/initialized", params: {} });
    })
    .catch((error) => status("The host did not start the board: " + error.message));
})();
</script>
</body>
</html>
`;
