/**
 * `resource()` and `resourceTemplate()`: declare resources, and bring the code that serves them
 * (`resources/list`, `resources/templates/list`, `resources/read`; a session's subscriptions)
 * and completes template variables (`completion/complete`) with them.
 */
import { COMPLETION } from "../methods/completionMethods.ts";
import { type Featured, withFeatures } from "../definition/Feature.ts";
import type { Home } from "../definition/Home.ts";
import { type Matchable, MATCHES, type ResourceDefinition, type ResourceTemplateDefinition } from "../definition/ResourceDefinition.ts";
import { UriTemplate } from "../methods/UriTemplate.ts";
import { RESOURCES } from "../methods/resourceMethods.ts";

/** Declares a resource with a fixed URI. */
export function resource<const H extends Home = "session">(definition: ResourceDefinition<H>): ResourceDefinition<H> & Featured {
  return withFeatures(definition, [RESOURCES]);
}

/** Types a resource template: `read` receives its `{variables}` by name, and `complete` may only name them. */
export function resourceTemplate<const T extends string, const H extends Home = "session">(definition: ResourceTemplateDefinition<T, H>): ResourceTemplateDefinition<T, H> & Featured {
  // Parsed on first use: a malformed template is reported by the server definition, with the others' problems.
  let template: UriTemplate | undefined;
  const matches = (uri: string) => (template ??= new UriTemplate(definition.uriTemplate)).match(uri) !== undefined;
  const matchable: ResourceTemplateDefinition<T, H> & Matchable = { ...definition, [MATCHES]: matches };
  return withFeatures(matchable, [RESOURCES, COMPLETION]);
}
