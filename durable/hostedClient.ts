/**
 * The registry behind `watchRegistry` and `taskRegistry`: whether this Worker's entry exports
 * one optional Durable Object class (its factory says so, handing over the client that reaches
 * the class's objects), so that the Worker and its objects reach them only then, and a Worker
 * whose entry does not export the class ships none of that client (pay for what you use). One per script, not per definition: a script binds each class once.
 */

/** How requests reach the objects of a namespace, each listener bounded to `maxBytes` unread. */
export type ObjectClient<O extends Rpc.DurableObjectBranded, T> = (namespace: DurableObjectNamespace<O>, maxBytes: number) => T;

export interface HostedClient<O extends Rpc.DurableObjectBranded, T> {
  /** Called by the class's factory: requests reach its objects through `client`. */
  host(client: ObjectClient<O, T>): void;
  /** The client for `namespace`, where the entry exports the class and its binding is bound; else undefined. */
  remote(namespace: DurableObjectNamespace<O> | undefined, maxBytes: number): T | undefined;
}

export function hostedClient<O extends Rpc.DurableObjectBranded, T>(): HostedClient<O, T> {
  let hosted: ObjectClient<O, T> | undefined;
  return {
    host: (client) => void (hosted = client),
    remote: (namespace, maxBytes) => (namespace && hosted ? hosted(namespace, maxBytes) : undefined),
  };
}
