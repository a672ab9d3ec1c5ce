/**
 * Reads the captured Cline 3.15.5 ↔ my-weather-server session from its capture file (`SEED`,
 * kept beside the repository rather than in it): the `GET /sse` request
 * headers, every `POST /mcp/message` with its exact headers and body, and the `data:` of every
 * `event:message` the server streamed back. Throws if the seed is missing or its shape changed:
 * the replay must never silently test nothing.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const SEED = fileURLToPath(new URL("../../../shared/seeds/001_7b7b5036faf6f4e0.txt", import.meta.url));

export interface CapturedPost {
  headers: Record<string, string>;
  body: string;
}

export interface LegacyCapture {
  sseHeaders: Record<string, string>;
  posts: CapturedPost[];
  /** JSON text of each `event:message` data line, in stream order. */
  replies: string[];
}

function headerBlock(lines: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

export function readLegacyCapture(path = SEED): LegacyCapture {
  const text = readFileSync(path, "utf8");
  const sse = /GET \/sse HTTP\/1\.1\n([\s\S]*?)\n\n/.exec(text);
  if (!sse) throw new Error(`${path}: no GET /sse request found`);

  const posts: CapturedPost[] = [];
  const postPattern = /POST \/mcp\/message\?sessionId=[0-9a-f-]+ HTTP\/1\.1\n([\s\S]*?)\n\n/g;
  for (let match; (match = postPattern.exec(text)); ) {
    const headers = headerBlock(match[1]!.split("\n"));
    const length = Number(headers["content-length"]);
    const body = text.slice(postPattern.lastIndex, postPattern.lastIndex + length);
    if (!text.startsWith("HTTP/1.1 200 OK", postPattern.lastIndex + length)) {
      throw new Error(`${path}: POST body of declared length ${length} is not followed by the captured response`);
    }
    posts.push({ headers, body });
  }
  const replies = [...text.matchAll(/event:message\ndata:(.*)\n/g)].map((m) => m[1]!);
  if (posts.length !== 5 || replies.length !== 5) {
    throw new Error(`${path}: expected 5 POSTs and 5 streamed replies, found ${posts.length} and ${replies.length}`);
  }
  return { sseHeaders: headerBlock(sse[1]!.split("\n")), posts, replies };
}
