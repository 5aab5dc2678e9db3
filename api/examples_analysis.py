"""The example of GET /v1/matches/{id}/analysis in the API reference (api/examples.py serves
it): a real analysis, cut short."""

from __future__ import annotations

import json
from typing import Any

ANALYSIS: Any = json.loads(
    """{
 "id": "m_QKwja5Au3Q2CO5A3sQV7tg",
 "version": 19,
 "analysis_version": 1,
 "variant": "three-hand-gin",
 "events": 19,
 "thresholds": {
  "unit": "deadwood",
  "exact": 0.05,
  "inaccuracy": 1.0,
  "mistake": 3.0,
  "blunder": 8.0
 },
 "seats": [
  {
   "seat": 0,
   "name": "expert-0",
   "decisions": 6,
   "average_cost": 0.0,
   "total_cost": 0.0,
   "counts": {
    "best": 6,
    "good": 0,
    "inaccuracy": 0,
    "mistake": 0,
    "blunder": 0
   },
   "worst": []
  },
  {
   "seat": 1,
   "name": "basic-1",
   "decisions": 8,
   "average_cost": 0.0,
   "total_cost": 0.0,
   "counts": {
    "best": 8,
    "good": 0,
    "inaccuracy": 0,
    "mistake": 0,
    "blunder": 0
   },
   "worst": []
  },
  {
   "seat": 2,
   "name": "random-2",
   "decisions": 0,
   "average_cost": 0.0,
   "total_cost": 0,
   "counts": {
    "best": 0,
    "good": 0,
    "inaccuracy": 0,
    "mistake": 0,
    "blunder": 0
   },
   "worst": []
  }
 ],
 "decisions": [
  {
   "seq": 4,
   "seat": 1,
   "round": 1,
   "kind": "upcard",
   "played": {
    "type": "take_upcard"
   },
   "best": {
    "type": "take_upcard"
   },
   "cost": 0.0,
   "judgment": "best",
   "note": "take_upcard: the best option",
   "tags": [],
   "details": {
    "take_value": 14.93,
    "stock_value": 32.78
   }
  },
  {
   "seq": 5,
   "seat": 1,
   "round": 1,
   "kind": "discard",
   "played": {
    "type": "discard",
    "card": "JH"
   },
   "best": {
    "type": "discard",
    "card": "JH"
   },
   "cost": 0.0,
   "judgment": "best",
   "note": "discard JH: the best option",
   "tags": [],
   "details": {
    "deadwood": 21
   }
  }
 ],
 "hindsight": [
  {
   "seq": 5,
   "seat": 1,
   "round": 1,
   "kind": "discard_taken",
   "points": 30,
   "note": "the opponent took JH from the pile, saving it 30 deadwood"
  }
 ]
}"""
)
"""The analysis of a short three-hand gin match (seed 7, expert, basic and random bots, to
25), its decisions and hindsight cut to the first of each kind."""
