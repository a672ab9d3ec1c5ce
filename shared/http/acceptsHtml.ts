/**
 * Whether a request is a browser's, by its Accept header: one that lists `text/html` (RFC 9110
 * §12.5.1), and not with `q=0`, which refuses it. curl's `*\/*`, `application/json` and no header
 * are not: a program that asks for anything keeps getting what it got before (`GET /`'s JSON).
 */
import { requestHeaders } from "./requestHeaders.ts";

/** @example acceptsHtml(new Request(url, { headers: { accept: "text/html,application/xhtml+xml" } })) // true */
export function acceptsHtml(request: Request): boolean {
  const accept = requestHeaders(request).get("accept");
  if (!accept) return false;
  return accept.split(",").some((range) => {
    const [type, ...params] = range.split(";");
    return type!.trim().toLowerCase() === "text/html" && !params.some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/i.test(p));
  });
}
