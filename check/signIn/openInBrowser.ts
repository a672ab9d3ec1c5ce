/**
 * Opens a URL in the user's browser with the platform's opener: `open` on macOS, `xdg-open`
 * elsewhere on Unix, and on Windows `rundll32 url.dll,FileProtocolHandler` (it takes the URL as
 * one argument, where `start` would need cmd.exe, which reads `&` and `%` in a URL as its own).
 * No shell runs: the URL is one argument. Only http(s) URLs are opened, since the URL comes from
 * the server under check. Best effort: the caller prints the URL whatever happens here.
 */
import { spawn } from "node:child_process";

/** Resolves whether an opener was started (not whether a browser showed the page). */
export function openInBrowser(url: URL): Promise<boolean> {
  if (url.protocol !== "https:" && url.protocol !== "http:") return Promise.resolve(false);
  const [command, ...args] = process.platform === "darwin" ? ["open"] : process.platform === "win32" ? ["rundll32", "url.dll,FileProtocolHandler"] : ["xdg-open"];
  return new Promise((resolve) => {
    const child = spawn(command!, [...args, url.href], { stdio: "ignore", detached: true });
    child.once("error", () => resolve(false));
    child.once("spawn", () => {
      child.unref();
      resolve(true);
    });
  });
}
