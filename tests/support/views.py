"""A seat's own part of a view, typed: every seat's view has `you`, a spectator's has None."""

from __future__ import annotations

from typing import overload

from domain.gin.shapes import GinView, GinYou
from domain.manipulation.shapes import ManipulationView, ManipulationYou
from domain.variants import View


@overload
def you_of(shown: GinView) -> GinYou: ...
@overload
def you_of(shown: ManipulationView) -> ManipulationYou: ...
@overload
def you_of(shown: View) -> GinYou | ManipulationYou: ...
def you_of(shown: View) -> GinYou | ManipulationYou:
    you = shown["you"]
    assert you is not None, "a spectator's view has no `you`"
    return you
