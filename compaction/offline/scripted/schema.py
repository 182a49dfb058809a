"""Which inputs a tool's ``input_schema`` accepts: a check, and a maker of accepted values.

The real API calls a tool only with an input its JSON Schema accepts (the SDK's ``ToolParam.input_schema``,
"JSON schema for this tool's input"). The offline model does the same: ``problem`` checks a value, and
``make`` builds one, trying the caller's preferred values first (``prefer``, e.g. a path taken from the
user's task), then the schema's own ``const``, ``enum``, ``default`` and ``examples``, then values made
from its type and bounds; every candidate is checked before it is returned, so a made value is accepted
by construction. The keywords are JSON Schema 2020-12's, read as the ``jsonschema`` library reads them
(tests check both agree on generated schemas): ``type``, ``enum``, ``const``, ``properties``,
``required``, ``additionalProperties``, ``minProperties``, ``maxProperties``, ``items``, ``minItems``,
``maxItems``, ``uniqueItems``, ``minLength``, ``maxLength``, ``pattern``, the numeric bounds and
``multipleOf``, ``allOf``, ``anyOf``, ``oneOf``, ``not``, and ``$ref`` to the schema's own ``$defs`` or
``definitions``. Annotations (``title``, ``description``, ``format``, ...) are not checked.

Deliberately left out: the keywords in ``UNSUPPORTED`` (a schema that uses one raises ``Unsupported``,
and the offline model then leaves that tool alone rather than guess), remote ``$ref``, and making
strings for a ``pattern`` (a pattern is met only by a preferred value or a listed one).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any

UNSUPPORTED = frozenset(
    {
        "patternProperties", "propertyNames", "dependentRequired", "dependentSchemas", "dependencies",
        "if", "then", "else", "prefixItems", "contains", "minContains", "maxContains", "unevaluatedItems",
        "unevaluatedProperties", "$dynamicRef", "$recursiveRef",
    }
)  # fmt: skip
NOTHING = object()  # no value could be made
MAX_DEPTH = 8  # nested schemas followed when making a value ($ref cycles end here)

Prefer = Callable[[str | None, dict], list]  # (property name or None, its schema) -> values to try first


class Unsupported(ValueError):
    """A schema uses a keyword this module does not read, named in the message with where it is."""


def equal(a: Any, b: Any) -> bool:
    """JSON equality: 1 == 1.0, but a boolean is never a number; lists and objects compared deeply."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def is_type(value: Any, kind: str) -> bool:
    """Whether ``value`` is of the JSON Schema type ``kind`` (an integral float is an integer)."""
    if kind == "null":
        return value is None
    if kind == "boolean":
        return isinstance(value, bool)
    if kind in ("number", "integer"):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        return kind == "number" or isinstance(value, int) or float(value).is_integer()
    return isinstance(value, {"string": str, "array": list, "object": dict}.get(kind, ()))


def _types(schema: dict) -> list[str]:
    kind = schema.get("type")
    return [kind] if isinstance(kind, str) else list(kind or [])


def _resolve(ref: str, root: Any, where: str) -> Any:
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        raise Unsupported(f"{where}.$ref: only references inside the schema ('#/...') are read, not {ref!r}")
    node = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            raise Unsupported(f"{where}.$ref: {ref!r} names nothing in the schema")
        node = node[part]
    return node


def problem(schema: Any, value: Any, root: Any = None, where: str = "input") -> str | None:
    """The first reason ``schema`` refuses ``value`` (naming where), or None when it accepts it."""
    root = schema if root is None else root
    if schema is True or schema == {}:
        return None
    if schema is False:
        return f"{where}: no value is allowed here"
    if not isinstance(schema, dict):
        raise Unsupported(f"{where}: a schema must be an object or a boolean, not {type(schema).__name__}")
    used = UNSUPPORTED & schema.keys()
    if used:
        raise Unsupported(f"{where}: the keyword {sorted(used)[0]!r} is not read by the offline model")
    for check in (_type_and_values, _numbers, _strings, _arrays, _objects, _combined):
        found = check(schema, value, root, where)
        if found:
            return found
    return None


def accepts(schema: Any, value: Any) -> bool:
    """True when ``schema`` accepts ``value``."""
    return problem(schema, value) is None


def _type_and_values(schema: dict, value: Any, root: Any, where: str) -> str | None:
    types = _types(schema)
    if types and not any(is_type(value, t) for t in types):
        return f"{where}: should be of type {' or '.join(types)}"
    if "const" in schema and not equal(value, schema["const"]):
        return f"{where}: should be {schema['const']!r}"
    if "enum" in schema and not any(equal(value, e) for e in schema["enum"]):
        return f"{where}: should be one of {schema['enum']!r}"
    if "$ref" in schema:
        return problem(_resolve(schema["$ref"], root, where), value, root, where)
    return None


def _numbers(schema: dict, value: Any, root: Any, where: str) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if "minimum" in schema and value < schema["minimum"]:
        return f"{where}: should be at least {schema['minimum']}"
    if "maximum" in schema and value > schema["maximum"]:
        return f"{where}: should be at most {schema['maximum']}"
    if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
        return f"{where}: should be more than {schema['exclusiveMinimum']}"
    if "exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"]:
        return f"{where}: should be less than {schema['exclusiveMaximum']}"
    step = schema.get("multipleOf")
    if step is not None and not _multiple(value, step):
        return f"{where}: should be a multiple of {step}"
    return None


def _multiple(value: int | float, step: int | float) -> bool:
    """As jsonschema judges it: a float step by an integral quotient (exact when that overflows)."""
    if isinstance(step, float):
        try:
            quotient = value / step
            return int(quotient) == quotient
        except OverflowError:
            return (Fraction(value) / Fraction(step)).denominator == 1
    return value % step == 0


def _strings(schema: dict, value: Any, root: Any, where: str) -> str | None:
    if not isinstance(value, str):
        return None
    if len(value) < schema.get("minLength", 0):
        return f"{where}: should have at least {schema['minLength']} characters"
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        return f"{where}: should have at most {schema['maxLength']} characters"
    if "pattern" in schema and not re.search(schema["pattern"], value):
        return f"{where}: should match the pattern {schema['pattern']!r}"
    return None


def _arrays(schema: dict, value: Any, root: Any, where: str) -> str | None:
    if not isinstance(value, list):
        return None
    if len(value) < schema.get("minItems", 0):
        return f"{where}: should have at least {schema['minItems']} items"
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        return f"{where}: should have at most {schema['maxItems']} items"
    if schema.get("uniqueItems"):
        for i, item in enumerate(value):
            if any(equal(item, other) for other in value[:i]):
                return f"{where}.{i}: repeats an earlier item; items should be unique"
    items = schema.get("items", True)
    if isinstance(items, list):
        raise Unsupported(f"{where}.items: a list of schemas is not read by the offline model")
    for i, item in enumerate(value):
        found = problem(items, item, root, f"{where}.{i}")
        if found:
            return found
    return None


def _objects(schema: dict, value: Any, root: Any, where: str) -> str | None:
    if not isinstance(value, dict):
        return None
    for name in schema.get("required", []):
        if name not in value:
            return f"{where}.{name}: Field required"
    if len(value) < schema.get("minProperties", 0):
        return f"{where}: should have at least {schema['minProperties']} properties"
    if "maxProperties" in schema and len(value) > schema["maxProperties"]:
        return f"{where}: should have at most {schema['maxProperties']} properties"
    properties = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    for name, item in value.items():
        if name not in properties and extra is False:
            return f"{where}.{name}: Extra inputs are not permitted"
        found = problem(properties.get(name, extra), item, root, f"{where}.{name}")
        if found:
            return found
    return None


def _combined(schema: dict, value: Any, root: Any, where: str) -> str | None:
    for sub in schema.get("allOf", []):
        found = problem(sub, value, root, where)
        if found:
            return found
    if "anyOf" in schema and all(problem(s, value, root, where) for s in schema["anyOf"]):
        return f"{where}: matches none of the schemas in anyOf"
    if "oneOf" in schema:
        matched = sum(problem(s, value, root, where) is None for s in schema["oneOf"])
        if matched != 1:
            return f"{where}: should match exactly one schema in oneOf, matches {matched}"
    if "not" in schema and problem(schema["not"], value, root, where) is None:
        return f"{where}: matches the schema in not"
    return None


# ---------------------------------------------------------------- making a value


def make(schema: Any, prefer: Prefer | None = None) -> Any:
    """A value ``schema`` accepts, the preferred ones first; ``NOTHING`` when none is found."""
    return _make(schema, schema, prefer or (lambda name, sub: []), None, 0, 0)


def _make(schema: Any, root: Any, prefer: Prefer, name: str | None, index: int, depth: int) -> Any:
    if depth > MAX_DEPTH:
        return NOTHING
    sub = schema if isinstance(schema, dict) else {}
    tried = list(prefer(name, sub)) if schema is not False else []
    tried += [sub["const"]] if "const" in sub else []
    tried += list(sub.get("enum", [])) + ([sub["default"]] if "default" in sub else [])
    tried += list(sub.get("examples", []) if isinstance(sub.get("examples"), list) else [])
    for value in tried:
        if problem(schema, value, root) is None:
            return value
    if schema is False:
        return NOTHING
    parts = [sub]
    if "$ref" in sub:
        parts.append(_resolve(sub["$ref"], root, "input"))
    parts += list(sub.get("allOf", []))
    for branch in [None, *sub.get("anyOf", []), *sub.get("oneOf", [])]:
        merged = _merge(parts + ([branch] if branch is not None else []), root)
        if merged is None:
            continue
        for kind in _types(merged) or _guess(merged):
            for value in _of_type(kind, merged, root, prefer, index, depth):
                if value is not NOTHING and problem(schema, value, root) is None:
                    return value
    return NOTHING


def _merge(parts: list, root: Any) -> dict | None:
    """One schema holding every part's keywords (a $ref read in place); None when types cannot meet."""
    merged: dict = {}
    for part in parts:
        if part is True:
            continue
        if part is False or not isinstance(part, dict):
            return None
        if "$ref" in part and part is not parts[0]:
            part = {**_resolve(part["$ref"], root, "input"), **{k: v for k, v in part.items() if k != "$ref"}}
        for key, value in part.items():
            if key == "type" and "type" in merged:
                both = _common(_types(merged), _types(part))
                if not both:
                    return None
                merged["type"] = both
            elif key == "properties":
                merged["properties"] = {**merged.get("properties", {}), **value}
            elif key == "required":
                merged["required"] = list(dict.fromkeys([*merged.get("required", []), *value]))
            elif key not in ("allOf", "anyOf", "oneOf", "$ref", "not"):
                merged.setdefault(key, value)
    return merged


def _common(one: list[str], other: list[str]) -> list[str]:
    """The types both lists allow (an integer is also a number)."""
    both = [t for t in one if t in other or (t == "integer" and "number" in other)]
    both += [t for t in other if t == "integer" and "number" in one]
    return list(dict.fromkeys(both))


def _guess(schema: dict) -> list[str]:
    """The types a schema without ``type`` suggests by its keywords, most likely first."""
    if {"properties", "required", "additionalProperties", "minProperties"} & schema.keys():
        return ["object"]
    if {"items", "minItems", "maxItems", "uniqueItems"} & schema.keys():
        return ["array"]
    if {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"} & schema.keys():
        return ["number"]
    return ["string", "object", "integer", "boolean", "array", "null"]


def _of_type(kind: str, schema: dict, root: Any, prefer: Prefer, index: int, depth: int) -> list:
    """Values of one kind for a merged branch, in order: the whole schema picks (a oneOf may refuse one)."""
    if kind == "null":
        return [None]
    if kind == "boolean":
        return [True, False]
    if kind in ("integer", "number"):
        return _numbers_for(schema, kind, index)
    if kind == "string":
        return [_string(schema, index)]
    if kind == "array":
        return [_array(schema, root, prefer, depth)]
    if kind == "object":
        return [_object(schema, root, prefer, depth)]
    return []


def _numbers_for(schema: dict, kind: str, index: int) -> list[int | float]:
    """The tries the numeric keywords accept, in order (first a multiple of ``multipleOf`` from 1, then from
    the lower bound, then between the bounds); the last try when none is accepted."""
    tries = _number_tries(schema, kind, index)
    return [value for value in tries if _numbers(schema, value, schema, "") is None] or tries[-1:]


def _number_tries(schema: dict, kind: str, index: int) -> list[int | float]:
    """The numbers ``_number`` tries, in order: from 1, from the lower bound, between the bounds."""
    lows = [schema["minimum"]] if "minimum" in schema else []
    if "exclusiveMinimum" in schema:
        above = schema["exclusiveMinimum"]
        lows.append(math.floor(above) + 1 if kind == "integer" else above + 0.5)
    low = max(lows, default=0)
    highs = [schema[k] for k in ("maximum", "exclusiveMaximum") if k in schema]
    starts = [max(low, 1), low] + ([(low + min(highs)) / 2] if highs and kind == "number" else [])
    step = schema.get("multipleOf")
    tries: list[int | float] = []
    for start in starts:
        value = math.ceil(start / step) * step if step else start
        if kind == "integer":
            value = math.ceil(value)
        tries.append(value + index * (step or 1))
    return tries


def _string(schema: dict, index: int) -> str:
    base = "value" if index == 0 else f"value {index + 1}"
    low, high = schema.get("minLength", 0), schema.get("maxLength")
    if len(base) < low:
        base += "x" * (low - len(base))
    return base if high is None else base[:high]


def _array(schema: dict, root: Any, prefer: Prefer, depth: int) -> Any:
    items = schema.get("items", True)
    count = schema.get("minItems", 0)
    made = []
    for k in range(count):
        value = _make(items, root, prefer, None, k, depth + 1)
        if value is NOTHING:
            return NOTHING
        made.append(value)
    return made


def _object(schema: dict, root: Any, prefer: Prefer, depth: int) -> Any:
    properties = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    made: dict = {}
    wanted = list(schema.get("required", []))
    optional = [n for n in properties if n not in wanted]
    wanted += optional[: max(0, schema.get("minProperties", 0) - len(wanted))]
    k = 0
    while len(wanted) < schema.get("minProperties", 0) and extra is not False:
        k += 1
        if f"field_{k}" not in properties:
            wanted.append(f"field_{k}")
    for name in wanted:
        value = _make(properties.get(name, extra), root, prefer, name, 0, depth + 1)
        if value is NOTHING:
            return NOTHING
        made[name] = value
    return made
