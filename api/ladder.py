"""The ladder of each variant (issue 32): accounts ordered by their conservative rating."""

# mypy: disable-error-code="untyped-decorator"
from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint

from api import docs
from api.common import json_response
from api.errors import ApiError
from api.keyauth import accounts
from api.schemas_accounts import LadderQuerySchema, LadderSchema
from domain.variants import NAMES
from store.ledger import Ledger

blp = Blueprint("ladder", __name__, url_prefix="/v1/ladder", description="The rated ladder")


@blp.route("/<variant>")
class Ladder(MethodView):
    @blp.arguments(LadderQuerySchema, location="query")
    @blp.response(200, LadderSchema)
    @blp.doc(responses=docs.problems(404, 422))
    def get(self, query: dict[str, Any], variant: str) -> Any:
        """The ladder of a variant, best first: ordered by the conservative rating mu - 3
        sigma, showing mu +- 2 sigma (`low`, `high`), games played and `provisional` while
        sigma is high. Paged by `offset` and `limit` (at most 200)."""
        if variant not in NAMES:
            raise ApiError("unknown_variant", f"no variant is called {variant[:40]!r}", 404)
        offset, limit = query["offset"], query["limit"]
        total, rows = Ledger(accounts().redis).page(variant, offset, limit)
        body = {
            "variant": variant,
            "total": total,
            "offset": offset,
            "limit": limit,
            "rows": [row.as_json() for row in rows],
        }
        return json_response(body)
