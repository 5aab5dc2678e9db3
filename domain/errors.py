"""The domain's refusals. Each class maps to exactly one HTTP status and problem `code`."""

from __future__ import annotations


class RulesError(Exception):
    """A move, card or option the rules refuse; the message names the input and the rule."""

    code = "illegal_move"


class InvalidCard(RulesError):
    """A card code that is not in the notation of api.md."""

    code = "invalid_card"


class MalformedMove(RulesError):
    """A move object with a missing, unknown or wrongly typed field."""

    code = "validation_error"


class InvalidOptions(RulesError):
    """Match options or players that the variant does not accept."""

    code = "validation_error"


class IllegalMove(RulesError):
    """A well-formed move that the rules do not allow now."""

    code = "illegal_move"


class AdviceLimit(IllegalMove):
    """The ADVISOR already gave the most advice allowed in this turn of the CAPTAIN."""

    code = "advice_limit"


class NotYourTurn(RulesError):
    """A seat moved while another seat is to act."""

    code = "not_your_turn"


class ForbiddenMove(RulesError):
    """A seat asked for a move its role may never make (e.g. the advisor drawing)."""

    code = "forbidden"
