"""Option checking written once for every game (rules.md section 5).

Each game keeps its own frozen options dataclass and its tables (the accepted range of each
integer option, the accepted values of each string option, a hint for values not played yet);
`validate` checks a request's options against them with one loop, and `frozen` turns a
recorded (already valid) options dict back into the dataclass.

A derived option (`max_rounds`, issue 28 item 3) is an integer whose default follows from the
other options (`derived`: the function that makes it). A match recorded before it existed has
`None` there (domain/upcast.py): `validate(..., recorded=True)` keeps that, so the old match
replays as it was played; a new match's options never accept it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import Field, dataclass, field, fields
from typing import ClassVar, Protocol, TypeVar

from domain.errors import InvalidOptions
from domain.shapes import JSON


class DataclassInstance(Protocol):
    """A game's options class: a dataclass (what `dataclasses.fields` reads)."""

    __dataclass_fields__: ClassVar[dict[str, Field[object]]]


T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class OptionTables:
    """One game's option rules: its name, defaults, integer limits, string choices, hints."""

    variant: str
    defaults: Mapping[str, JSON]
    limits: Mapping[str, tuple[int, int]]
    choices: Mapping[str, tuple[str, ...]]
    hints: Mapping[str, str] = field(default_factory=dict)
    derived: Mapping[str, Callable[[Mapping[str, JSON]], int]] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        variant: str,
        options_type: type[DataclassInstance],
        limits: Mapping[str, tuple[int, int]],
        choices: Mapping[str, tuple[str, ...]],
        hints: Mapping[str, str] | None = None,
        derived: Mapping[str, Callable[[Mapping[str, JSON]], int]] | None = None,
    ) -> OptionTables:
        """The tables of a game whose defaults are the fields of `options_type`."""
        defaults = {f.name: getattr(options_type(), f.name) for f in fields(options_type)}
        return cls(variant, defaults, limits, choices, dict(hints or {}), dict(derived or {}))


def validate(
    tables: OptionTables, options: Mapping[str, JSON] | None, recorded: bool = False
) -> dict[str, JSON]:
    """The full options dict with defaults; InvalidOptions names the first bad key (section 5).

    `recorded`: the options of a recorded MatchCreated, where a derived option may be None
    (recorded before the option existed)."""
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise InvalidOptions("options must be an object of option names to values")
    _refuse_unknown(tables, options)
    full = dict(tables.defaults)
    for key, value in options.items():
        if key not in tables.derived:
            _check(tables, key, value)
        elif not (recorded and value is None):
            _check_int(key, value, tables.limits[key], _hint(tables, key))
        full[key] = value
    for key, derive in tables.derived.items():
        if key not in options:
            full[key] = derive(full)
    return full


def frozen(options_type: type[T], options: Mapping[str, JSON]) -> T:
    """The frozen options of a recorded (already valid) options dict; unknown keys ignored."""
    names = {f.name for f in fields(options_type)}  # type: ignore[arg-type]
    return options_type(**{k: v for k, v in options.items() if k in names})


def _refuse_unknown(tables: OptionTables, options: Mapping[str, JSON]) -> None:
    for key in options:
        if key not in tables.defaults:
            raise InvalidOptions(
                f"option {key!r} is unknown for {tables.variant}: expected one of "
                + ", ".join(tables.defaults)
            )


def _check(tables: OptionTables, key: str, value: object) -> None:
    default = tables.defaults[key]
    if isinstance(default, bool):
        _check_bool(key, value)
    elif isinstance(default, int):
        _check_int(key, value, tables.limits[key], _hint(tables, key))
    elif value not in tables.choices[key]:
        raise InvalidOptions(
            f"option {key!r} must be one of {', '.join(tables.choices[key])}, "
            f"not {value!r}{_hint(tables, key)}"
        )


def _check_bool(key: str, value: object) -> None:
    if not isinstance(value, bool):
        raise InvalidOptions(f"option {key!r} must be true or false, not {value!r}")


def _check_int(key: str, value: object, limits: tuple[int, int], hint: str) -> None:
    low, high = limits
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidOptions(
            f"option {key!r} must be an integer {low}..{high}, not {value!r}{hint}"
        )


def _hint(tables: OptionTables, key: str) -> str:
    return f" ({tables.hints[key]})" if key in tables.hints else ""
