/**
 * Counts the platform calls the Worker makes (`npm run bench:calls`): each a crossing from
 * JavaScript into the runtime, which on workerd costs microseconds where a JavaScript call costs
 * nanoseconds, and which the CPU
 * figures of `npm run bench` are too noisy to resolve one by one. Installed before the Worker's
 * modules run (`countingWorker.ts`); the counts are per isolate, the session objects' included,
 * and read (and reset) at `GET /floor/counts`.
 */
const counts = new Map<string, number>();

function count(name: string): void {
  counts.set(name, (counts.get(name) ?? 0) + 1);
}

/** Wraps a method of a prototype so that each call is counted under `label`. */
function method(proto: object, name: string, label: string): void {
  const original = (proto as Record<string, unknown>)[name] as (...args: unknown[]) => unknown;
  Object.defineProperty(proto, name, {
    configurable: true,
    writable: true,
    value: function (this: unknown, ...args: unknown[]) {
      count(label);
      return original.apply(this, args);
    },
  });
}

/** Wraps a getter of a prototype, where the runtime defines one there. */
function getter(proto: object, name: string, label: string): void {
  const descriptor = Object.getOwnPropertyDescriptor(proto, name);
  if (!descriptor?.get) return;
  const original = descriptor.get;
  Object.defineProperty(proto, name, {
    ...descriptor,
    get(this: unknown) {
      count(label);
      return original.call(this);
    },
  });
}

for (const name of ["get", "has", "set", "append"]) method(Headers.prototype, name, `Headers.${name}`);
for (const name of ["url", "method", "headers", "body"]) getter(Request.prototype, name, `request.${name}`);
for (const name of ["status", "headers", "body"]) getter(Response.prototype, name, `response.${name}`);
method(EventTarget.prototype, "addEventListener", "addEventListener");
method(EventTarget.prototype, "removeEventListener", "removeEventListener");
method(TextDecoder.prototype, "decode", "TextDecoder.decode");
method(Request.prototype, "arrayBuffer", "request.arrayBuffer");
method(Request.prototype, "json", "request.json");
method(Request.prototype, "text", "request.text");

const timers = globalThis as unknown as Record<string, (...args: unknown[]) => unknown>;
for (const name of ["setTimeout", "clearTimeout"]) {
  const original = timers[name]!;
  timers[name] = (...args: unknown[]) => {
    count(name);
    return original(...args);
  };
}

const classes = globalThis as unknown as Record<string, new (...args: unknown[]) => object>;
for (const name of ["AbortController", "URL", "Response"]) {
  const Original = classes[name]!;
  // A subclass counts each construction; its instances are still the platform's.
  const Counted = class extends Original {
    constructor(...args: unknown[]) {
      count(`new ${name}`);
      super(...args);
    }
  };
  Object.defineProperty(Counted, "name", { value: name });
  classes[name] = Counted;
}

/** The counts since the last read, as `{ name: n }`, and a fresh start. */
export function takeCounts(): Record<string, number> {
  const taken = Object.fromEntries([...counts].sort(([a], [b]) => a.localeCompare(b)));
  counts.clear();
  return taken;
}
