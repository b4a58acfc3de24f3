// JSON Schema of the whole config, for yaml-language-server and other editors.
import { metadataSchema, reconcileSchema } from "./router-spec.js";
import type { JsonSchema } from "./schema.js";
import { KINDS } from "./kinds/index.js";
import { ROUTER_API_VERSION } from "./load.js";
import { whenSchema } from "./when.js";

export const SCHEMA_ID = "https://routerd.net/schemas/v1alpha1/router.json";

export function routerJsonSchema(): JsonSchema {
  const metadata = metadataSchema.jsonSchema();
  const resources = KINDS.map((k) => {
    const spec = k.spec.jsonSchema() as { properties?: Record<string, JsonSchema> };
    const withWhen = k.supportsWhen ? { ...spec, properties: { ...spec.properties, when: { $ref: "#/$defs/when" } } } : spec;
    return {
      title: k.kind,
      description: k.description,
      type: "object",
      properties: { apiVersion: { const: k.apiVersion }, kind: { const: k.kind }, metadata, spec: withWhen },
      required: ["apiVersion", "kind", "metadata", "spec"],
      additionalProperties: false,
    };
  });
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: SCHEMA_ID,
    title: "routerd Router configuration",
    type: "object",
    properties: {
      apiVersion: { const: ROUTER_API_VERSION },
      kind: { const: "Router" },
      metadata,
      spec: {
        type: "object",
        properties: { resources: { type: "array", items: { oneOf: resources } }, reconcile: reconcileSchema.jsonSchema(), apply: { ...reconcileSchema.jsonSchema(), description: "the original API's name for reconcile" } },
        required: ["resources"],
        additionalProperties: false,
      },
    },
    required: ["apiVersion", "kind", "metadata", "spec"],
    additionalProperties: false,
    $defs: { when: whenSchema.jsonSchema() },
  };
}
