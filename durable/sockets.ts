/**
 * What the Durable Objects do with the WebSockets they accept for hibernation, spelled once: answer
 * a close, send one line to each listener, close them all. A socket that is closing or closed is
 * past caring, so each step swallows the throw it may raise.
 */

/** Completes the close handshake the other side began (1005, "no status", is not a code one may send). */
export function closeBack(socket: WebSocket, code: number, reason: string): void {
  try {
    socket.close(code === 1005 ? 1000 : code, reason);
  } catch {
    // already closed
  }
}

/** Sends `message` as one JSON line to each socket. */
export function sendLine(sockets: readonly WebSocket[], message: object): void {
  const line = `${JSON.stringify(message)}\n`;
  for (const socket of sockets) {
    try {
      socket.send(line);
    } catch {
      // closing: its listener is gone
    }
  }
}

/** Closes each socket normally, saying why. */
export function closeAll(sockets: readonly WebSocket[], reason: string): void {
  for (const socket of sockets) closeBack(socket, 1000, reason);
}
