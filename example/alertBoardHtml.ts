/**
 * The alert board's view: one HTML document, its style and script inline (no framework, no CDN,
 * nothing fetched). It speaks the MCP Apps protocol to its host over `postMessage` (SEP-1865
 * "Lifecycle"): `ui/initialize` (declaring the inline display mode), then
 * `ui/notifications/initialized`; it takes the host's theme and style variables, renders the board
 * from each `ui/notifications/tool-result`, calls `pickAlertStates` through the host (`tools/call`)
 * when a state is clicked and tells the model the new pick (`ui/update-model-context`), reports
 * its content's size, and answers `ping` and `ui/resource-teardown`. Opened alone (its own parent,
 * which would answer its own `ui/initialize`), it says to open it in a host.
 *
 * Why, where the script does not say (its comments would ship with it):
 * - The size is the content's, measured as ext-apps' App does (the document at `max-content`):
 *   `scrollHeight` is never below the frame's, so the frame could never shrink.
 * - The host's font CSS is not applied: the view's CSP allows no font origin; `--font-sans` names the family.
 * - The model's last text came from its own call, so after a pick the view tells it what the board
 *   shows now, in the words `pickAlertStates` answered with.
 * - An answer without a board still leaves the states pickable, so the person can change it.
 * - It does not use ext-apps' App itself: bundled, that would be larger than the whole view.
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
  .error { color: var(--color-text-danger, light-dark(#b91c1c, #f87171)); margin: 0; }
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
  const root = document.documentElement;
  let hostCapabilities = {};
  const send = (message) => window.parent.postMessage({ jsonrpc: "2.0", ...message }, "*");
  const request = (method, params) => new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    send({ id, method, params });
  });
  const status = (text) => { document.getElementById("status").textContent = text; };

  function applyContext(context) {
    if (!context) return;
    if (context.theme) {
      root.dataset.theme = context.theme;
      root.style.colorScheme = context.theme;
    }
    const variables = (context.styles && context.styles.variables) || {};
    for (const [name, value] of Object.entries(variables)) if (name.startsWith("--") && typeof value === "string") root.style.setProperty(name, value);
  }

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
      section.append(title);
      if (state.error) {
        title.textContent = state.code + ": could not be shown" + (picked.includes(state.code) ? "" : " (not picked)");
        const error = document.createElement("p");
        error.className = "error";
        error.textContent = state.error;
        section.append(error);
        return section;
      }
      title.textContent = state.code + ": " + state.total + " active alert" + (state.total === 1 ? "" : "s");
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

  function tellModel(result) {
    if (hostCapabilities.updateModelContext) request("ui/update-model-context", { content: result.content, structuredContent: { picked } }).catch(() => {});
  }

  async function toggle(code) {
    const next = picked.includes(code) ? picked.filter((c) => c !== code) : [...picked, code];
    if (next.length > MAX) return status("At most " + MAX + " states: remove one first.");
    status("Updating…");
    try {
      const result = await request("tools/call", { name: "pickAlertStates", arguments: { states: next } });
      if (!result.structuredContent) return status((result.content && result.content[0] && result.content[0].text) || "The board could not be updated.");
      render(result.structuredContent);
      tellModel(result);
    } catch (error) {
      status("The board could not be updated: " + (error && error.message ? error.message : String(error)));
    }
  }

  let sizeQueued = false;
  let lastWidth = 0;
  let lastHeight = 0;
  const reportSize = () => {
    if (sizeQueued) return;
    sizeQueued = true;
    requestAnimationFrame(() => {
      sizeQueued = false;
      const height = root.style.height;
      root.style.height = "max-content";
      const content = Math.ceil(root.getBoundingClientRect().height);
      root.style.height = height;
      const width = Math.ceil(window.innerWidth);
      if (width === lastWidth && content === lastHeight) return;
      lastWidth = width;
      lastHeight = content;
      send({ method: "ui/notifications/size-changed", params: { width, height: content } });
    });
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
      const params = message.params || {};
      if (params.structuredContent) return render(params.structuredContent);
      if (!document.getElementById("codes").children.length) render({ picked: [] });
      status((params.content && params.content[0] && params.content[0].text) || "No board.");
    } else if (message.method === "ui/notifications/host-context-changed") {
      applyContext(message.params);
    } else if (message.id !== undefined && (message.method === "ping" || message.method === "ui/resource-teardown")) {
      send({ id: message.id, result: {} });
    } else if (message.id !== undefined) {
      send({ id: message.id, error: { code: -32601, message: "The board does not handle " + message.method } });
    }
  });

  if (window.parent === window) return status("This board is an MCP App: open it in an MCP Apps host.");
  request("ui/initialize", { protocolVersion: "2026-01-26", appInfo: { name: "alert-board", version: "1.0.0" }, appCapabilities: { availableDisplayModes: ["inline"] } })
    .then((result) => {
      hostCapabilities = (result && result.hostCapabilities) || {};
      applyContext(result && result.hostContext);
      send({ method: "ui/notifications/initialized", params: {} });
      const observer = new ResizeObserver(reportSize);
      observer.observe(root);
      observer.observe(document.body);
    })
    .catch((error) => status("The host did not start the board: " + error.message));
})();
</script>
</body>
</html>
`;
