#!/usr/bin/env python3
"""Regenerate the config reference from the declared models: the key tables of docs/formats.md
(between the ``config-reference`` markers) and docs/schemas/config.schema.json, the JSON Schema
editors use to complete and check a config. ``python3 scripts/gen_config_docs.py``;
tests/test_schemas.py fails when either is stale."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tourney.config import EntrantTable, LimitsTable, StorageTable  # noqa: E402
from tourney.formats import FORMATS  # noqa: E402

DOC = ROOT / "docs" / "formats.md"
SCHEMA = ROOT / "docs" / "schemas" / "config.schema.json"
START, END = "<!-- config-reference:start (scripts/gen_config_docs.py) -->", "<!-- config-reference:end -->"
WORDS = {"string": "string", "integer": "integer", "number": "number", "boolean": "true/false",
         "array": "list", "object": "table"}


def _hoist(schema: dict, defs: dict) -> dict:
    """``schema`` with its ``$defs`` moved into ``defs`` (refs point at the root's ``$defs``)."""
    defs.update(schema.pop("$defs", {}))
    return schema


def format_schema(fmt) -> dict:
    """The JSON Schema of a format's ``[event]`` table, its ``unit`` narrowed to the units that
    format takes (the model declares the key once for every format that has one)."""
    schema = fmt.settings.model_json_schema()
    unit = schema["properties"].get("unit")
    if unit is not None:
        schema["properties"]["unit"] = {
            "anyOf": [{"enum": [str(u) for u in fmt.units], "type": "string"}, {"type": "null"}],
            "default": None, "description": unit.get("description", "")}
        if not any("Unit" in json.dumps(p) for p in schema["properties"].values()):
            schema.get("$defs", {}).pop("Unit", None)
    return schema


def config_schema() -> dict:
    """The JSON Schema of a whole config file: one ``[event]`` shape per format, ``[limits]``
    and ``[[entrants]]``."""
    defs: dict = {}
    events = []
    for fmt in FORMATS.values():
        s = _hoist(format_schema(fmt), defs)
        s["title"] = f"[event] of a {fmt.name} event"
        s["description"] = fmt.summary
        s["properties"]["format"] = {"const": str(fmt.name), "description": "The event format."}
        if "rounds" not in s["properties"]:  # one round is what it plays: saying so is allowed
            s["properties"]["rounds"] = {"const": 1, "description": "Always 1 for this format."}
        events.append(s)
    limits = _hoist(LimitsTable.model_json_schema(), defs)
    entrant = _hoist(EntrantTable.model_json_schema(), defs)
    defs["LimitsTable"] = limits
    storage = _hoist(StorageTable.model_json_schema(), defs)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "tourney event config (TOML)",
        "description": "One event and its entrants; reference: docs/formats.md.",
        "type": "object",
        "additionalProperties": False,
        "required": ["event", "entrants"],
        "properties": {
            "event": {"oneOf": events},
            "limits": {"$ref": "#/$defs/LimitsTable"},
            "storage": storage,
            "entrants": {"type": "array", "minItems": 2, "items": entrant},
        },
        "$defs": dict(sorted(defs.items())),
    }


def _type(prop: dict, defs: dict) -> str:
    """A property's type in words: ``integer (2 to 8)``, ``'config' or 'rating'``..."""
    if "$ref" in prop:
        prop = defs[prop["$ref"].rsplit("/", 1)[1]]
    options = [p for p in prop.get("anyOf", [prop]) if p.get("type") != "null"]
    if len(options) == 1 and "$ref" in options[0]:
        return _type(options[0], defs)
    if len(options) > 1 and all("type" in o or "const" in o or "enum" in o for o in options):
        return " or ".join(_type(o, defs) for o in options)
    prop = options[0] if len(options) == 1 else prop
    if "enum" in prop:
        return " or ".join(f"`{json.dumps(v)}`" for v in prop["enum"])
    if "const" in prop:
        return f"`{json.dumps(prop['const'])}`"
    word = WORDS.get(prop.get("type", ""), "any")
    if word == "list" and prop.get("items", {}).get("type") == "string":
        word = "list of strings"
    low = prop.get("minimum", prop.get("exclusiveMinimum"))
    high = prop.get("maximum", prop.get("exclusiveMaximum"))
    if low is not None and high is not None:
        word += f" ({low} to {high}{', ends excluded' if 'exclusiveMinimum' in prop else ''})"
    elif low is not None:
        word += f" (at least {low})" if "minimum" in prop else f" (above {low})"
    return word


def _default(field) -> str:
    if field.is_required():
        return "required"
    value = field.get_default(call_default_factory=True)
    return "–" if value is None else f"`{json.dumps(value)}`"


def event_table() -> list[str]:
    """The keys of ``[event]``: one row per key, with the formats that take it."""
    rows: dict[str, dict] = {}
    for fmt in FORMATS.values():
        schema = format_schema(fmt)
        defs = schema.get("$defs", {})
        for key, field in fmt.settings.model_fields.items():
            row = rows.setdefault(key, {"formats": [], "variants": {}})
            row["formats"].append(str(fmt.name))
            variant = (_type(schema["properties"][key], defs), _default(field), field.description or "")
            row["variants"].setdefault(variant, []).append(str(fmt.name))
    lines = ["| key | formats | type | default | meaning |", "| --- | --- | --- | --- | --- |"]
    for key, row in rows.items():
        for (kind, default, meaning), names in row["variants"].items():
            which = "all" if len(names) == len(FORMATS) else ", ".join(f"`{n}`" for n in names)
            lines.append(f"| `{key}` | {which} | {kind} | {default} | {meaning} |")
    return lines


def model_table(model, prefix: str) -> list[str]:
    schema = model.model_json_schema()
    defs = schema.get("$defs", {})
    lines = ["| key | type | default | meaning |", "| --- | --- | --- | --- |"]
    for key, field in model.model_fields.items():
        kind = _type(schema["properties"][key], defs)
        lines.append(f"| `{prefix}{key}` | {kind} | {_default(field)} | {field.description or ''} |")
    return lines


def reference() -> str:
    """The generated block of docs/formats.md, markers included."""
    return "\n".join([
        START,
        "",
        "**`[event]`** (the formats column says which formats take a key, and a format refuses "
        "the others; \"–\": the meaning says the default):",
        "",
        *event_table(),
        "",
        "**`[limits]`** (and an entrant's `limits`; a key left out takes the referee's default):",
        "",
        *model_table(LimitsTable, ""),
        "",
        "**`[[entrants]]`** (exactly one of `builtin` and `command`; `cwd`, `env`, `limits`, "
        "`network` and `writable` are for command entrants):",
        "",
        *model_table(EntrantTable, ""),
        "",
        "**`[storage]`** (how the games are kept; not part of what identifies the event):",
        "",
        *model_table(StorageTable, ""),
        "",
        END,
    ])


def updated_doc(text: str) -> str:
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    return head + reference() + tail


def schema_text() -> str:
    return json.dumps(config_schema(), indent=2) + "\n"


if __name__ == "__main__":
    SCHEMA.parent.mkdir(parents=True, exist_ok=True)
    SCHEMA.write_text(schema_text(), encoding="utf-8")
    DOC.write_text(updated_doc(DOC.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"wrote {SCHEMA.relative_to(ROOT)} and the reference tables of {DOC.relative_to(ROOT)}")
