"""The precise parts of the OpenAPI document (issue 17): schemas flask-smorest cannot derive
from marshmallow (unions of moves and of variants, `const`, nullable references), the
operation ids, and the links from `POST /v1/matches` to every match operation.

`apply(spec)` runs once the blueprints are registered. The request bodies are still
validated by the marshmallow schemas of api/schemas.py and then by the game; the document
describes what both together accept.
"""

from __future__ import annotations

from typing import Any

from api.contract_moves import REF
from api.contract_moves import components as move_components
from api.contract_views import (
    INT,
    create_components,
    nullable,
    options_components,
    ref,
    view_components,
)

OPERATIONS: dict[tuple[str, str], str] = {
    ("/v1/matches", "post"): "create_match",
    ("/v1/matches/{match_id}", "get"): "get_match",
    ("/v1/matches/{match_id}/legal-moves", "get"): "get_legal_moves",
    ("/v1/matches/{match_id}/moves", "post"): "make_move",
    ("/v1/matches/{match_id}/events", "get"): "get_events",
    ("/v1/matches/{match_id}/events/stream", "get"): "stream_events",
    ("/v1/matches/{match_id}/log", "get"): "get_log",
    ("/v1/matches/{match_id}/hint", "get"): "get_hint",
    ("/v1/replays", "post"): "replay_log",
    ("/v1/bots", "get"): "list_bots",
    ("/v1/health", "get"): "get_health",
    ("/v1/health/live", "get"): "get_liveness",
    ("/v1/health/ready", "get"): "get_readiness",
}
MAX_SEATS = 5
"""Links name each seat's token up to the largest match (manipulation-rummy, M1.1)."""

RESPONSES: dict[str, dict[str, Any]] = {
    "LegalMoves": {
        "type": "object",
        "required": ["version", "seat", "moves"],
        "additionalProperties": False,
        "properties": {
            "version": INT,
            "seat": {**nullable(INT), "description": "null for a spectator"},
            "moves": {"type": "array", "items": ref("Move")},
        },
    },
    "MoveResult": {
        "type": "object",
        "required": ["version", "events", "match"],
        "additionalProperties": False,
        "properties": {
            "version": INT,
            "events": {"type": "array", "items": ref("Event")},
            "match": ref("View"),
        },
    },
    "Hint": {
        "type": "object",
        "required": ["move", "reason", "bot"],
        "additionalProperties": False,
        "properties": {
            "move": ref("Move"),
            "reason": {"type": "string"},
            "bot": {"type": "string", "description": "the bot that chose the move"},
        },
    },
    "ReplayResult": {
        "type": "object",
        "required": ["version", "match", "hands", "rounds"],
        "additionalProperties": False,
        "properties": {
            "version": {**INT, "description": "events replayed"},
            "match": {**ref("View"), "description": "the spectator view of the last state"},
            "hands": {
                "type": "array",
                "items": nullable({"type": "array", "items": {"type": "string"}}),
                "description": "every seat's final hand (null for a seat with no hand)",
            },
            "rounds": {
                "type": "array",
                "items": {"oneOf": [ref("GinRoundResult"), ref("ManipulationRoundResult")]},
            },
            "steps": {
                "type": "array",
                "items": ref("ReplayStep"),
                "description": "with `?steps=true`: the match after each event, in order",
            },
        },
    },
    "ReplayStep": {
        "type": "object",
        "description": "The replayed match right after one event (the replay page steps "
        "through these).",
        "required": ["seq", "type", "match", "hands"],
        "additionalProperties": False,
        "properties": {
            "seq": INT,
            "type": {"type": "string", "description": "the event's type"},
            "match": {**ref("View"), "description": "the spectator view at that moment"},
            "hands": {
                "type": "array",
                "items": nullable({"type": "array", "items": {"type": "string"}}),
                "description": "every seat's hand at that moment (the log is public)",
            },
        },
    },
}


def components(name: dict[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    return {
        **move_components(),
        **options_components(),
        **create_components(name),
        **view_components(),
        **RESPONSES,
    }


def apply(spec: Any) -> None:
    """Register the schemas, name the operations, and link the created match to its
    operations, in the flask-smorest spec `spec`."""
    player = spec.components.schemas.get("Player", {})  # marshmallow's, from api/schemas.py
    for name, schema in components(player.get("properties", {}).get("name")).items():
        if name in spec.components.schemas:
            del spec.components.schemas[name]  # a marshmallow stand-in (request bodies)
        spec.components.schema(name, component=schema)
    paths = spec._paths
    for (path, method), operation_id in OPERATIONS.items():
        if method in paths.get(path, {}):
            paths[path][method]["operationId"] = operation_id
    _body(paths["/v1/matches"]["post"], "CreateMatch")
    _body(paths["/v1/matches/{match_id}/moves"]["post"], "Move")
    created = paths["/v1/matches"]["post"]["responses"]["201"]
    created["links"] = links(paths)
    _one_of_nullable(spec.components.schemas)


def _body(operation: dict[str, Any], name: str) -> None:
    content = operation["requestBody"]["content"]["application/json"]
    content["schema"] = {"$ref": REF + name}


def links(paths: dict[str, Any]) -> dict[str, Any]:
    """For each match operation: a spectator's link and one per seat's token."""
    out: dict[str, Any] = {}
    for (path, method), operation_id in OPERATIONS.items():
        if not path.startswith("/v1/matches/") or method not in paths.get(path, {}):
            continue
        out[operation_id] = {
            "operationId": operation_id,
            "parameters": {"path.match_id": "$response.body#/id"},
            "description": f"{operation_id} on the new match, as a spectator",
        }
        for seat in range(MAX_SEATS):
            out[f"{operation_id}_as_seat_{seat}"] = {
                "operationId": operation_id,
                "parameters": {
                    "path.match_id": "$response.body#/id",
                    "header.Authorization": f"Bearer {{$response.body#/seats/{seat}/token}}",
                },
                "description": f"{operation_id} on the new match with seat {seat}'s token",
            }
    return out


def _one_of_nullable(schemas: dict[str, Any]) -> None:
    """apispec writes a nullable nested schema as `anyOf: [{$ref}, {type: null}]`; the
    document uses `oneOf`, as everywhere else (exactly one branch can match)."""
    for schema in schemas.values():
        for member in schema.get("properties", {}).values():
            branches = member.get("anyOf")
            if isinstance(branches, list) and {"type": "null"} in branches:
                member["oneOf"] = member.pop("anyOf")
