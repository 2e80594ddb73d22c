"""Every JSON output checked against the schema the package ships for it
(:mod:`scrapy_robots_rfc.schemas`), with the ``jsonschema`` package."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from typing import Any

import jsonschema

from scrapy_robots_rfc import schemas


@functools.cache
def validator(name: str) -> Any:
    """A validator of the schema ``name``, itself checked against its
    meta-schema (draft 2020-12)."""
    schema = schemas.load(name)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def valid(name: str, record: Any) -> Any:
    """``record``, once it is valid for the schema ``name`` (raises
    ``jsonschema.ValidationError`` if not)."""
    validator(name).validate(record)
    return record


def valid_lines(name: str, lines: Iterable[str]) -> list[dict[str, Any]]:
    """Each line of JSON Lines output, parsed and valid for ``name``."""
    return [valid(name, json.loads(line)) for line in lines]
