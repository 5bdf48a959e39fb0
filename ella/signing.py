"""Signed gateway requests: a forget, an export, a correction or a page of a user's memory needs the gateway's key,
not only the broker's password.

Why: the broker password is shared by everything that speaks for the gateway, and Redis's ACL can say which
queue a user may push onto, never what the message asks for. An outside probe with the gateway's Redis user
pushed ``ella.forget_user`` for a user it chose and a worker erased her. So the requests that erase, disclose or
change a user's memory carry ``signature``: HMAC-SHA256, keyed with the gateway's signing key
(``ELLA_GATEWAY_SIGNING_KEY``, shared by the gateway and the workers only), over the canonical form below. The
worker checks it (``hmac.compare_digest``) before it reads anything else of the request; an unsigned or wrongly
signed request changes nothing and is answered with a ``rejected`` entry (``unsigned``, ``bad_signature``).

The canonical form (docs/gateway.md, "Signed requests"), chosen so that any language writes it with string
joins and no JSON library: the UTF-8 bytes of ``ella-request-v1``, the task name, then for each kwarg except
``signature`` sorted by name (all names are ASCII), ``<name>=<value>``, all joined by NUL (``\\x00``). A value
is written as it is for a string, in decimal for an integer, ``true``/``false`` for a boolean; a ``null``
kwarg is left out (the same as an absent one). A kwarg of any other type (a float, a list, an object) cannot
be signed: such a request is refused ``bad_signature``. NUL cannot be confused with a separator: no field the
contract accepts may hold one (ella/contract.py refuses NUL).

What the signature does not do: it does not expire (a replayed request changes nothing new: a request id is
answered once, and a second erasure of an erased user finds nothing), and it does not hide anything: the answer
still goes to the outbox stream, which whoever holds the gateway's Redis password can read through the
gateway's group (docs/deployment-security.md says what Redis cannot enforce).

Plain Python: the gateway's client signs with it, the workers verify with it.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from typing import Any

VERSION = "ella-request-v1"
FIELD = "signature"
# The requests that erase, disclose or change what Ella holds about one user.
SIGNED_TASKS = frozenset(
    {
        "ella.forget_user",
        "ella.export_user",
        "ella.forget_memory",
        "ella.correct_fact",
        "ella.list_memory",
        "ella.search_memory",
    }
)
# Dead-letter reasons (ella.rejections maps them to the codes ``unsigned`` and ``bad_signature``).
UNSIGNED = "unsigned request: this task needs the gateway's signature (ELLA_GATEWAY_SIGNING_KEY)"
BAD_SIGNATURE = "bad signature: the signature does not match the request (wrong key, or a field changed)"


class Unsignable(ValueError):
    """A kwarg whose type has no canonical form (only strings, integers, booleans and null do)."""


def _value(name: str, value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value
    raise Unsignable(f"{name}: a {type(value).__name__} cannot be signed")


def canonical(task: str, kwargs: Mapping[str, Any]) -> bytes:
    """The bytes the signature is over; raises ``Unsignable`` (also for text that is not valid Unicode)."""
    parts = [VERSION, task]
    for name in sorted(kwargs):
        if name != FIELD and kwargs[name] is not None:
            parts.append(f"{name}={_value(name, kwargs[name])}")
    try:
        return "\x00".join(parts).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise Unsignable("a field is not valid Unicode (a lone surrogate)") from exc


def sign(key: str, task: str, kwargs: Mapping[str, Any]) -> str:
    """The request's ``signature``: lowercase hex HMAC-SHA256 of ``canonical(task, kwargs)`` with ``key``."""
    return hmac.new(key.encode("utf-8"), canonical(task, kwargs), hashlib.sha256).hexdigest()


def signed(key: str | None, task: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` with their ``signature`` when ``key`` is set and ``task`` is signed; unchanged otherwise (a
    deployment with no key: docs/gateway.md)."""
    if key is None or task not in SIGNED_TASKS:
        return kwargs
    return {**kwargs, FIELD: sign(key, task, kwargs)}


def problem(key: str | None, task: str, kwargs: Any) -> str | None:
    """Why the worker must refuse this request (``UNSIGNED`` or ``BAD_SIGNATURE``), or None when it may act:
    the task needs no signature, no key is configured, or the signature matches."""
    if key is None or task not in SIGNED_TASKS:
        return None
    given = kwargs.get(FIELD) if isinstance(kwargs, Mapping) else None
    if given is None:
        return UNSIGNED
    if not isinstance(given, str):
        return BAD_SIGNATURE
    try:
        expected = sign(key, task, kwargs)
    except Unsignable:
        return BAD_SIGNATURE
    # compare_digest on ASCII bytes: a non-ASCII "signature" must be refused, not raise
    if not hmac.compare_digest(expected.encode("ascii"), given.encode("utf-8", "surrogatepass")):
        return BAD_SIGNATURE
    return None
