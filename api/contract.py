"""The precise parts of the OpenAPI document (issue 17): schemas flask-smorest cannot derive
from marshmallow (unions of moves and of variants, `const`, nullable references), the
operation ids, and the links from `POST /v1/matches` to every match operation.

`apply(spec)` runs once the blueprints are registered. The request bodies are still
validated by the marshmallow schemas of api/schemas.py and then by the game; the document
describes what both together accept.
"""

from __future__ import annotations

import json
from typing import Any

from api.contract_clock import components as clock_components
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
from api.schemas import ReplayQuerySchema, StreamQuerySchema

OPERATIONS: dict[tuple[str, str], str] = {
    ("/v1/matches", "post"): "create_match",
    ("/v1/matches/{match_id}", "get"): "get_match",
    ("/v1/matches/{match_id}/legal-moves", "get"): "get_legal_moves",
    ("/v1/matches/{match_id}/moves", "post"): "make_move",
    ("/v1/matches/{match_id}/events", "get"): "get_events",
    ("/v1/matches/{match_id}/events/stream", "get"): "stream_events",
    ("/v1/matches/{match_id}/log", "get"): "get_log",
    ("/v1/matches/{match_id}/hint", "get"): "get_hint",
    ("/v1/matches/{match_id}/analysis", "get"): "get_analysis",
    ("/v1/matches/{match_id}/join", "post"): "join_match",
    ("/v1/matches/{match_id}/leave", "post"): "leave_match",
    ("/v1/matches/{match_id}/cancel", "post"): "cancel_match",
    ("/v1/matches/{match_id}/rematch", "post"): "rematch",
    ("/v1/lobby", "get"): "list_lobby",
    ("/v1/replays", "post"): "replay_log",
    ("/v1/bots", "get"): "list_bots",
    ("/v1/health", "get"): "get_health",
    ("/v1/health/live", "get"): "get_liveness",
    ("/v1/health/ready", "get"): "get_readiness",
    ("/v1/accounts", "post"): "create_account",
    ("/v1/accounts/{handle}", "get"): "get_account",
    ("/v1/accounts/{handle}/keys", "get"): "list_keys",
    ("/v1/accounts/{handle}/keys", "post"): "create_key",
    ("/v1/accounts/{handle}/keys/{key_id}", "delete"): "revoke_key",
    ("/v1/ladder/{variant}", "get"): "get_ladder",
    ("/v1/seeks", "post"): "create_seek",
    ("/v1/seeks", "get"): "list_seeks",
    ("/v1/seeks/{seek_id}", "get"): "get_seek",
    ("/v1/seeks/{seek_id}", "delete"): "cancel_seek",
}
UNLINKED = frozenset({"get_analysis", "join_match", "leave_match", "cancel_match", "rematch"})
"""Operations no link of a new match leads to: an analysis is 404 until the match is finished
(issue 33), so the link would never be available from the created match; the lobby's writes
(issue 30) need a match with open seats (or a finished one), and their links would only
lead the play's checks away from the play."""
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
    "Joined": {
        "type": "object",
        "required": ["id", "seat", "token", "version", "match"],
        "additionalProperties": False,
        "properties": {
            "id": {"type": "string", "description": "the match joined (a rematch: the new one)"},
            "seat": INT,
            "token": {
                **nullable({"type": "string"}),
                "description": "the seat's bearer token, minted for this join and shown only "
                "here; null when a rematch seat was claimed before",
            },
            "version": INT,
            "match": {**ref("View"), "description": "the match as the seat sees it"},
        },
    },
    "SeatsChanged": {
        "type": "object",
        "required": ["version", "match"],
        "additionalProperties": False,
        "properties": {"version": INT, "match": ref("View")},
    },
    "LobbyPage": {
        "type": "object",
        "required": ["matches", "next", "seeks"],
        "additionalProperties": False,
        "properties": {
            "matches": {"type": "array", "items": ref("LobbyEntry")},
            "seeks": {
                "type": "array",
                "items": ref("OpenSeek"),
                "description": "the open seeks (of the variant), oldest first (issue 32)",
            },
            "next": {
                **nullable({"type": "string"}),
                "description": "the cursor of the next page (`?cursor=`); null: no more",
            },
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
        **clock_components(),
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
    _seek_clock(spec.components.schemas)
    _one_of_nullable(spec.components.schemas)
    input_defaults(paths, spec.components.schemas)
    _lost_queries(spec)


def _seek_clock(schemas: dict[str, Any]) -> None:
    """A seek's clock is a create's (`ClockOptions`), not the marshmallow stand-in, whose
    name the view's `Clock` has taken."""
    seek = schemas.get("CreateSeek")
    if seek is not None:
        described = seek["properties"]["clock"].get("description", "")
        seek["properties"]["clock"] = {**nullable(ref("ClockOptions")), "description": described}


def _body(operation: dict[str, Any], name: str) -> None:
    content = operation["requestBody"]["content"]["application/json"]
    content["schema"] = {"$ref": REF + name}


def links(paths: dict[str, Any]) -> dict[str, Any]:
    """For each match operation: a spectator's link and one per seat's token."""
    out: dict[str, Any] = {}
    for (path, method), operation_id in OPERATIONS.items():
        if not path.startswith("/v1/matches/") or method not in paths.get(path, {}):
            continue
        if operation_id in UNLINKED:
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


QUERIES: dict[str, Any] = {"stream_events": StreamQuerySchema, "replay_log": ReplayQuerySchema}
"""Operations whose `@blp.doc(parameters=[a header])` replaces, in flask-smorest, the query
parameters of their `@blp.arguments(..., location="query")`: `_lost_queries` adds them back."""


def _lost_queries(spec: Any) -> None:
    converter = next(p.converter for p in spec.plugins if getattr(p, "converter", None))
    for item in spec._paths.values():
        for operation in item.values():
            if not isinstance(operation, dict) or operation.get("operationId") not in QUERIES:
                continue
            parameters = operation.get("parameters", [])
            if not any(p.get("in") == "query" for p in parameters):
                schema = QUERIES[operation["operationId"]]
                queries = converter.schema2parameters(schema, location="query")
                operation["parameters"] = [*queries, *parameters]


def input_defaults(paths: dict[str, Any], schemas: dict[str, Any]) -> None:
    """Every schema a request body reaches states its defaults in words, not with `default`.

    A TypeScript author's generator (openapi-typescript 7, default settings) makes each
    property with a `default` required in the type, requests too (its issues #1741, #2012),
    so `options: {target_score: 25}` would not type-check. The server fills in what a request
    leaves out, so there the default is prose ("Default: `25`."); the views, which always
    carry every option, keep `default`. Query parameters keep theirs (generators read them as
    optional)."""
    for name in sorted(_reached(paths, schemas)):
        properties = schemas[name].get("properties", {})
        for key, member in properties.items():
            if isinstance(member, dict) and "default" in member:
                member = dict(member)  # a copy: the views' schemas may share the member
                said = f"Default: `{json.dumps(member.pop('default'))}`."
                text = member.get("description")
                member["description"] = f"{text.rstrip('.')}. {said}" if text else said
                properties[key] = member


def _reached(paths: dict[str, Any], schemas: dict[str, Any]) -> set[str]:
    """The names of the component schemas a request body refers to, directly or not."""
    todo = [
        operation["requestBody"]
        for item in paths.values()
        for operation in item.values()
        if isinstance(operation, dict) and "requestBody" in operation
    ]
    found: set[str] = set()
    while todo:
        node = todo.pop()
        if isinstance(node, list):
            todo.extend(node)
        elif isinstance(node, dict):
            target = node.get("$ref")
            if isinstance(target, str) and target.startswith(REF):
                name = target.removeprefix(REF)
                if name not in found and name in schemas:
                    found.add(name)
                    todo.append(schemas[name])
            todo.extend(node.values())
    return found


def _one_of_nullable(schemas: dict[str, Any]) -> None:
    """apispec writes a nullable nested schema as `anyOf: [{$ref}, {type: null}]`; the
    document uses `oneOf`, as everywhere else (exactly one branch can match)."""
    for schema in schemas.values():
        for member in schema.get("properties", {}).values():
            branches = member.get("anyOf")
            if isinstance(branches, list) and {"type": "null"} in branches:
                member["oneOf"] = member.pop("anyOf")
