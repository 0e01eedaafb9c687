"""Writes tools.json: an MCP tool list with maps as pydantic 2 writes them
(`dict[str, T]` is `{"type": "object", "additionalProperties": T}`), the
way AgentDojo's travel suite returns ratings and prices keyed by name. Run
with pydantic 2 installed: `python generate.py > tools.json`."""

import json
from typing import Optional

from pydantic import BaseModel, TypeAdapter


class RatingsFor(BaseModel):
    """Ratings and reviews of hotels, keyed by hotel name."""

    hotel_names: list[str]


class CityRatings(BaseModel):
    """Ratings of a city's hotels."""

    city: str


class Ratings(BaseModel):
    ratings: dict[str, float]
    reviews: dict[str, list[str]]
    currency: Optional[str] = None


class SetPrices(BaseModel):
    """Sets prices, keyed by room name."""

    hotel: str
    prices: dict[str, float]
    notes: Optional[dict[str, str]] = None


def tool(name, model, read_only, output):
    return {
        "name": name,
        "description": model.__doc__ or name,
        "inputSchema": model.model_json_schema(),
        "outputSchema": output,
        "annotations": {"readOnlyHint": read_only},
    }


tools = [
    tool("get_rating_reviews_for_hotels", RatingsFor, True, TypeAdapter(dict[str, str]).json_schema()),
    tool("city_ratings", CityRatings, True, Ratings.model_json_schema()),
    tool("set_prices", SetPrices, False, TypeAdapter(dict[str, int]).json_schema()),
]
print(json.dumps({"tools": tools}, indent=1))
