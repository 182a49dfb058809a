"""The offline model reads a tool's input_schema as jsonschema does, and every value it makes validates.

Schemas are drawn from the keywords ``compaction.offline.scripted.schema`` reads (types, bounds, enums,
objects, arrays, combinations, local ``$ref``), values from JSON of every kind and from the module's
own maker; ``jsonschema``'s Draft 2020-12 validator is the reference for both.
"""

from __future__ import annotations

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from schemas import containers, json_values, numeric, schemas, text, with_defs

from compaction.agent.tools import COMPACT_TOOL, TOOL_DEFINITIONS
from compaction.offline.scripted.schema import NOTHING, Unsupported, accepts, equal, make, problem


def reference(schema) -> Draft202012Validator:
    return Draft202012Validator(schema)


@given(st.one_of(schemas, with_defs), json_values)
def test_the_check_agrees_with_jsonschema_on_any_value(schema, value):
    assert accepts(schema, value) == reference(schema).is_valid(value), problem(schema, value)


@given(st.one_of(schemas, with_defs))
def test_every_value_the_maker_returns_validates(schema):
    value = make(schema)
    assume(value is not NOTHING)
    assert reference(schema).is_valid(value), (schema, value)


@given(st.one_of(text(), numeric(), containers(st.one_of(text(), numeric(), st.just({"type": "boolean"})))))
@example({"oneOf": [{"type": "integer"}, {"type": "integer", "minimum": 1}]})  # 1 matches both; 0 one
def test_a_satisfiable_schema_without_patterns_or_negation_always_gets_a_value(schema):
    assume("not" not in schema and '"pattern"' not in repr(schema).replace("'", '"'))
    assume(any(reference(schema).is_valid(v) for v in (None, 0, 1, "value", True, [], {})) or _likely(schema))
    value = make(schema)
    if value is NOTHING:  # then nothing simple is accepted either: check that the schema really is hard
        assert not any(reference(schema).is_valid(v) for v in (None, 0, 1, "value", True, [], {}, "x" * 4))
    else:
        assert reference(schema).is_valid(value)


def _likely(schema) -> bool:
    return schema.get("type") in ("object", "array", "string", "integer", "number")


@given(json_values, json_values)
def test_json_equality_never_takes_a_boolean_for_a_number(a, b):
    assert equal(a, b) == reference({"const": a}).is_valid(b)


def test_preferred_values_come_first_when_the_schema_accepts_them():
    schema = {
        "type": "object",
        "properties": {"path": {"type": "string"}, "n": {"type": "integer"}},
        "required": ["path"],
    }
    prefer = lambda name, sub: ["src/a.py"] if name == "path" else []  # noqa: E731
    assert make(schema, prefer) == {"path": "src/a.py"}
    short = {
        "type": "object",
        "properties": {"path": {"type": "string", "maxLength": 3}},
        "required": ["path"],
    }
    assert make(short, prefer) == {"path": "val"}  # the preference is refused, the made value fits


def test_an_unsatisfiable_schema_gets_nothing_not_a_wrong_value():
    assert make({"type": "integer", "minimum": 3, "maximum": 2}) is NOTHING
    assert make({"type": "object", "required": ["x"], "additionalProperties": False}) is NOTHING
    assert make(False) is NOTHING


@pytest.mark.parametrize("keyword", ["patternProperties", "if", "prefixItems", "unevaluatedProperties"])
def test_a_keyword_it_does_not_read_is_named_not_guessed(keyword):
    with pytest.raises(Unsupported, match=keyword):
        problem({"type": "object", keyword: {}}, {})


def test_the_course_tools_get_valid_inputs():
    for tool in [*TOOL_DEFINITIONS, COMPACT_TOOL]:
        value = make(tool["input_schema"])
        assert reference(tool["input_schema"]).is_valid(value), tool["name"]
