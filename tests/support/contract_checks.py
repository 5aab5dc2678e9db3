"""What schemathesis may expect of the Deadwood API (issue 17), shared by the in-process and
the served fuzzing tests.

Every check runs, positive_data_acceptance included. A few operations refuse input that fits
the schema for a rule the schema cannot state, as openapi.yaml records: a move may be illegal
(422, or 412 for a stale If-Match), a log may break the rules, `?at=` may be past the last
event, an Idempotency-Key may have been used with another body. Those operations accept 422
in positive_data_acceptance, and `schema_valid_422_names_a_rule` (registered on import) keeps
that honest: such a 422 must carry one of the codes listed for its operation.
"""

from __future__ import annotations

from typing import Any

import schemathesis
from schemathesis.config import SchemathesisConfig

RULE_REFUSALS = ["2xx", "401", "403", "404", "409"]
SCHEMA_VALID_422 = {
    "POST /v1/matches": {"idempotency_key_reused", "seeded_open_seat"},
    "POST /v1/matches/{match_id}/join": {"validation_error", "idempotency_key_reused"},
    "GET /v1/matches/{match_id}": {"validation_error"},  # ?at= past the last event
    "POST /v1/matches/{match_id}/moves": {
        "illegal_move",
        "invalid_card",
        "validation_error",  # a member of the other game's move (`from` of a manipulation draw)
        "idempotency_key_reused",
    },
    "POST /v1/replays": {"invalid_log", "idempotency_key_reused"},
}
NAME_RULE_422 = {"POST /v1/matches", "POST /v1/matches/{match_id}/join"}
"""Operations whose player names follow a rule the pattern cannot state in full (unassigned
code points, format characters above U+FFFF, whitespace only: api/schemas.py PLAIN_TEXT)."""


def _names_only(body: dict[str, Any]) -> bool:
    errors = body.get("errors") or {}
    return bool(errors) and all(
        key.startswith("players.")
        and key.endswith((".name", ".bot"))
        and all("must be plain text" in m for m in messages)
        for key, messages in errors.items()
    )


CONFIG: dict[str, Any] = {
    # The stateful runs follow the document's own links (a created match to its operations).
    # Links inferred from matching field names would chain account operations (issue 32),
    # whose handles persist in Redis across examples (201 once, 409 after), so hypothesis
    # would see the available rules change between runs of one example.
    "phases": {"stateful": {"inference": {"algorithms": ["location-headers"]}}},
    "operations": [
        {
            "include-path": "/v1/matches/{match_id}/moves",
            "checks": {
                "positive_data_acceptance": {"expected-statuses": [*RULE_REFUSALS, 412, 422]}
            },
        },
        {
            "include-path": "/v1/matches/{match_id}",
            "checks": {"positive_data_acceptance": {"expected-statuses": [*RULE_REFUSALS, 422]}},
        },
        {
            "include-path": "/v1/replays",
            "checks": {"positive_data_acceptance": {"expected-statuses": [*RULE_REFUSALS, 422]}},
        },
        {
            # 404 match_not_finished until the match is finished (issue 33): a match made by
            # the stateful run is in play, so its analysis is rightly not available
            "include-path": "/v1/matches/{match_id}/analysis",
            "checks": {"ensure_resource_availability": {"enabled": False}},
        },
        {
            "include-path": "/v1/matches",
            "include-method": "POST",
            "checks": {"positive_data_acceptance": {"expected-statuses": [*RULE_REFUSALS, 422]}},
        },
    ],
}


@schemathesis.check
def schema_valid_422_names_a_rule(ctx: Any, response: Any, case: Any) -> bool | None:
    """A 422 to schema-valid input carries only the rule refusals listed for its operation
    (so positive_data_acceptance's extra 422 cannot hide a schema the server disagrees with)."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code != 422:
        return None
    body = response.json()
    code = body.get("code")
    operation = f"{case.method.upper()} {case.operation.path}"
    if operation in NAME_RULE_422 and code == "validation_error" and _names_only(body):
        return True
    allowed = SCHEMA_VALID_422.get(operation, set())
    assert code in allowed, f"schema-valid input refused with {code}: {response.text[:300]}"
    return True


def contract_config() -> SchemathesisConfig:
    return SchemathesisConfig.from_dict(CONFIG)
