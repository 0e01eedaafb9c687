"""Writes tools.json: an MCP tool list whose schemas pydantic 2 writes
(`model_json_schema()`, its `$ref`/`$defs` kept as written). Run with
pydantic 2 installed: `python generate.py > tools.json`."""

import enum
import json
from datetime import date
from typing import Annotated, Literal, Optional, Union

from pydantic import BaseModel, Field


class Permission(str, enum.Enum):
    read = "r"
    write = "rw"


class Address(BaseModel):
    street: str
    city: str
    postcode: Optional[str] = None


class Contact(BaseModel):
    name: str
    email: str
    address: Optional[Address] = None


class ShareFile(BaseModel):
    file_id: str
    email: str
    permission: Permission


class CreateContact(BaseModel):
    contact: Contact
    tags: list[str] = []
    primary: Optional[Contact] = None


class Card(BaseModel):
    kind: Literal["card"]
    number: str


class Iban(BaseModel):
    kind: Literal["iban"]
    iban: str
    bic: Optional[str] = None


class Pay(BaseModel):
    amount: float
    method: Annotated[Union[Card, Iban], Field(discriminator="kind")]
    when: Optional[date] = None


class Lookup(BaseModel):
    key: Union[int, str]
    mode: Permission = Permission.read


class Event(BaseModel):
    title: str
    attendees: list[Contact]


class Events(BaseModel):
    events: list[Event]
    next_page: Optional[str] = None


def tool(name, model, read_only, output=None):
    t = {
        "name": name,
        "description": model.__doc__ or name,
        "inputSchema": model.model_json_schema(),
        "annotations": {"readOnlyHint": read_only},
    }
    if output is not None:
        t["outputSchema"] = output.model_json_schema()
    return t


Share = ShareFile
Share.__doc__ = "An enum parameter: pydantic writes it as a `$ref` into `$defs`."
CreateContact.__doc__ = "Nested models, optional ones, and a list default."
Pay.__doc__ = "A discriminated union of two models."
Lookup.__doc__ = "A union of scalars and an enum with a default."


class ListEvents(BaseModel):
    """A result whose models nest three deep."""

    day: date


tools = [
    tool("share_file", Share, False),
    tool("create_contact", CreateContact, False),
    tool("pay", Pay, False),
    tool("lookup", Lookup, True),
    tool("list_events", ListEvents, True, Events),
]
print(json.dumps({"tools": tools}, indent=1))
