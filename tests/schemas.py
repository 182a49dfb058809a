"""Hypothesis strategies for JSON Schemas of tool inputs, and JSON values to hold against them.

``schemas`` draws from the keywords ``compaction.offline.scripted.schema`` reads: types with their
bounds, enums and consts, objects (properties, required, additionalProperties, minProperties), arrays,
allOf/anyOf/oneOf and not; ``with_defs`` wraps one behind a local ``$ref``; ``tool_schemas`` are
objects at the top, as a tool's ``input_schema`` is. Deliberately left out: the keywords the module
names as unsupported, and remote references.
"""

from __future__ import annotations

from hypothesis import strategies as st

NAMES = ("path", "query", "limit", "mode", "tags")
json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-20, 20),
    st.floats(-20, 20, allow_nan=False).map(lambda f: round(f, 2)),
    st.text("abcxyz0 ", max_size=6),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(NAMES), inner, max_size=3)
    ),
    max_leaves=8,
)


def numeric() -> st.SearchStrategy[dict]:
    bound = st.one_of(st.integers(-5, 5), st.sampled_from([0.5, 1.5, -2.5]))
    keys = st.fixed_dictionaries(
        {},
        optional={
            "minimum": bound,
            "maximum": bound,
            "exclusiveMinimum": bound,
            "exclusiveMaximum": bound,
            "multipleOf": st.sampled_from([1, 2, 3, 0.5, 0.25]),
        },
    )
    return st.tuples(st.sampled_from(["integer", "number"]), keys).map(lambda p: {"type": p[0], **p[1]})


def text() -> st.SearchStrategy[dict]:
    keys = st.fixed_dictionaries(
        {},
        optional={
            "minLength": st.integers(0, 4),
            "maxLength": st.integers(0, 8),
            "pattern": st.sampled_from(["^[a-z]+$", "x", "^v", "[0-9]"]),
            "format": st.sampled_from(["date", "uri", "email"]),
        },
    )
    return keys.map(lambda k: {"type": "string", **k})


leaves = st.one_of(
    st.booleans(),
    st.sampled_from([{}, {"type": "null"}, {"type": "boolean"}, {"type": ["string", "null"]}]),
    numeric(),
    text(),
    st.lists(json_scalars, min_size=1, max_size=3).map(lambda e: {"enum": e}),
    json_scalars.map(lambda c: {"const": c}),
)


def containers(inner: st.SearchStrategy) -> st.SearchStrategy:
    objects = st.builds(
        lambda props, required, extra, least: {
            "type": "object",
            "properties": props,
            "required": required,
            **({"additionalProperties": extra} if extra is not None else {}),
            **({"minProperties": least} if least else {}),
        },
        st.dictionaries(st.sampled_from(NAMES), inner, max_size=3),
        st.lists(st.sampled_from(NAMES), max_size=2, unique=True),
        st.one_of(st.none(), st.booleans(), inner),
        st.integers(0, 2),
    )
    arrays = st.builds(
        lambda items, low, unique: {"type": "array", "items": items, "minItems": low, "uniqueItems": unique},
        inner,
        st.integers(0, 2),
        st.booleans(),
    )
    combined = st.builds(
        lambda kind, parts: {kind: parts},
        st.sampled_from(["anyOf", "oneOf", "allOf"]),
        st.lists(inner, min_size=1, max_size=3),
    )
    return st.one_of(objects, arrays, combined, inner.map(lambda s: {"not": s}))


schemas = st.recursive(leaves, containers, max_leaves=6)
with_defs = schemas.map(
    lambda s: {"$defs": {"Item": s}, "type": "object", "properties": {"item": {"$ref": "#/$defs/Item"}}}
)


tool_schemas = st.builds(
    lambda props, required: {"type": "object", "properties": props, "required": required},
    st.dictionaries(st.sampled_from(NAMES), schemas, max_size=3),
    st.lists(st.sampled_from(NAMES), max_size=2, unique=True),
)
