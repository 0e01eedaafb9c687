// Writes tools.json: an MCP tool list whose schemas zod-to-json-schema
// writes from zod 3 schemas. Run where `zod` and `zod-to-json-schema` are
// installed: `node generate.mjs > tools.json`.
import { z } from "zod";
import { zodToJsonSchema } from "zod-to-json-schema";

const Money = z.object({ amount: z.number(), currency: z.enum(["EUR", "USD"]) });
const Address = z.object({ city: z.string(), zip: z.string().optional() });

// A schema used twice: by default written once and then referred to by a
// pointer into `properties` (`$refStrategy: "root"`).
const Transfer = z.object({
  from: Address,
  to: Address,
  money: Money,
  memo: z.string().nullable(),
});

// Named shared schemas under `definitions`, and the root itself a `$ref`.
const Invite = z.object({
  title: z.string(),
  host: Address,
  guests: z.array(Address),
});

// A tagged union, an intersection of two objects (`allOf`), a literal.
const Shape = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("circle"), radius: z.number() }),
  z.object({ kind: z.literal("square"), side: z.number() }),
]);
const Draw = z.intersection(
  z.object({ shape: Shape, layer: z.number().int() }),
  z.object({ colour: z.enum(["red", "blue"]).default("red") }),
);

const tools = [
  {
    name: "transfer",
    description: "A schema referred to twice (`#/properties/from`).",
    inputSchema: zodToJsonSchema(Transfer),
    annotations: { readOnlyHint: false },
  },
  {
    name: "invite",
    description: "Named definitions; the input schema itself a `$ref`.",
    inputSchema: zodToJsonSchema(Invite, {
      name: "Invite",
      definitions: { Address },
    }),
    annotations: { readOnlyHint: false },
  },
  {
    name: "draw",
    description: "A discriminated union inside an intersection (`allOf`).",
    inputSchema: zodToJsonSchema(Draw),
    outputSchema: zodToJsonSchema(z.object({ id: z.string(), shape: Shape })),
    annotations: { readOnlyHint: false },
  },
];
console.log(JSON.stringify({ tools }, null, 1));
