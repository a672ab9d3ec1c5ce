/**
 * The parts of the protocol a server has only when it declares something of them: prompts,
 * resources with their templates, and completion (of prompt arguments and template variables).
 * Their code travels with the helpers that make their definitions — `prompt()`, `resource()`,
 * `resourceTemplate()` — so a server of tools alone does not carry it. Tools are the core, and
 * always there.
 *
 * A definition made by a helper carries its features under a symbol; the server definition
 * compiles each feature once, from all of its options.
 */
import type { Home } from "./Home.ts";
import type { SwitchView } from "./ListKind.ts";
import type { MethodGroup } from "./Method.ts";
import type { PromptDefinition } from "./PromptDefinition.ts";
import type { ResourceDefinition, ResourceTemplateDefinition } from "./ResourceDefinition.ts";
import type { JsonSchemaConverter } from "../schema/standardSchema.ts";

export const FEATURES: unique symbol = Symbol("durable-mcp features");

/** What a feature is compiled from: the server options it reads. */
export interface FeatureOptions {
  prompts?: readonly PromptDefinition<any, Home>[];
  resources?: readonly ResourceDefinition<Home>[];
  resourceTemplates?: readonly ResourceTemplateDefinition<any, Home>[];
  toJsonSchema?: JsonSchemaConverter;
}

/** What a feature adds to a server: its methods and capability, and for resources what can be read. */
export interface FeatureGroup extends MethodGroup {
  /** Whether `uri` names a resource this request may read (what `resources/subscribe` checks). */
  resolves?(uri: string, ctx: SwitchView): boolean;
  /**
   * The `uriTemplate` of the template with a handle home that a read of `uri` resolves to, which a
   * span records instead of the URI (the handle is a capability); undefined for any other URI.
   * Absent when no template has a handle home.
   */
  handleTemplateOf?(uri: string): string | undefined;
}

export interface Feature {
  readonly name: string;
  compile(options: FeatureOptions): FeatureGroup;
}

/** A definition made by a helper, carrying the features it needs. */
export interface Featured {
  readonly [FEATURES]: readonly Feature[];
}

/**
 * A copy of `definition` that carries `features`: under a symbol, so they are never listed or
 * sent, and enumerable, so that a copy made with `{ ...definition }` keeps them.
 */
export function withFeatures<T extends object>(definition: T, features: readonly Feature[]): T & Featured {
  return { ...definition, [FEATURES]: features };
}

/** The features of a definition, or undefined when it was not made by a helper. */
export function featuresOf(definition: object): readonly Feature[] | undefined {
  return (definition as Partial<Featured>)[FEATURES];
}
