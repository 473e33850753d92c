"""Same-origin only: the table answers its own pages, not other web sites (docs/web.md, "Limits").

A page on another site can make a visitor's browser send requests here (a form or ``fetch``
with ``mode: "no-cors"``), and a site whose name is made to resolve to 127.0.0.1 ("DNS
rebinding") can even read the answers. So:

* every request must name the server itself in ``Host``: an IP address, ``localhost``, this
  machine's name, or the host of an origin given with ``--allow-origin``; otherwise 403;
* a state-changing request (anything but GET, HEAD, OPTIONS) is refused with 403 when its
  ``Origin`` (``Sec-Fetch-Site``) says it comes from another site, and with 415 unless its body
  is ``application/json`` — a type no other site can send without the browser asking this
  server first (a CORS preflight, which it never grants).

A request without ``Origin`` comes from a program, not from a page (browsers send it with every
POST), and is let through: it could as well have asked directly.

No browser sends two ``Host``, ``Origin`` or ``Content-Type`` headers, or a ``Host`` that is not a
name or an address and a port; a proxy or a script can, and whichever copy one reads the other
may mean something else. So such a request is a 400, and ``Host`` is read strictly.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from hot_envs.web.tables import short

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# Headers this server reads its answer from: one of each or none.
SINGLE_HEADERS = ("host", "origin", "content-type", "content-length", "sec-fetch-site")
# A Host header: a name or an IPv4 address, or an IPv6 address in brackets; then a port or not.
HOST = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(?::[0-9]{1,5})?")


def check_origin(origin: str) -> str:
    """``origin`` as ``scheme://host[:port]`` (lower case), or a ``ValueError`` saying why not."""
    parts = urlsplit(origin.strip())
    if (
        parts.scheme not in ("http", "https")
        or not parts.hostname
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
        or parts.username
    ):
        raise ValueError(
            f"an allowed origin is scheme://host[:port], such as https://cards.example.org, "
            f"not {origin!r}"
        )
    return f"{parts.scheme}://{parts.netloc.lower()}"


class SameOrigin:
    """ASGI middleware for the rules of the module docstring; ``allow`` are extra origins
    (``--allow-origin``), as :func:`check_origin` spells them."""

    def __init__(self, app: ASGIApp, allow: Iterable[str] = ()) -> None:
        self.app = app
        self.allow = frozenset(check_origin(origin) for origin in allow)
        names = {"localhost", socket.gethostname().lower(), socket.getfqdn().lower()}
        self.hosts = frozenset(names | {urlsplit(origin).hostname for origin in self.allow})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = Headers(scope=scope)
        doubled = [name for name in SINGLE_HEADERS if len(headers.getlist(name)) > 1]
        if doubled:
            refusal = 400, f"a request carries one {doubled[0].title()} header, not several"
        else:
            refusal = self.refusal(scope, headers)
        if refusal is None:
            return await self.app(scope, receive, send)
        status, message = refusal
        await JSONResponse({"error": message}, status_code=status)(scope, receive, send)

    def refusal(self, scope: Scope, headers: Headers) -> tuple[int, str] | None:
        """(status, message) for a request the rules refuse, else None."""
        host = headers.get("host", "")
        if not self._own_host(host):
            return 403, (
                f"this server does not answer to the host {short(host)}; start it with "
                "--allow-origin SCHEME://HOST[:PORT] to put it behind that name"
            )
        if scope["method"] in SAFE_METHODS:
            return None
        origin = headers.get("origin")
        own = f"{scope.get('scheme', 'http')}://{host.lower()}"
        if origin is not None and origin.lower() not in self.allow | {own}:
            return 403, (
                f"cross-site request refused: origin {short(origin)} is not this server ({own}); "
                "start it with --allow-origin ORIGIN if that is where its pages are"
            )
        if origin is None and headers.get("sec-fetch-site") == "cross-site":
            return 403, "cross-site request refused"
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            return 415, f"send the request body as application/json, not {short(kind or 'no type')}"
        return None

    def _own_host(self, host: str) -> bool:
        if not HOST.fullmatch(host):
            return False
        name = urlsplit(f"//{host}").hostname
        if not name:
            return False
        try:
            ipaddress.ip_address(name)
            return True  # an address is no name another site can point here
        except ValueError:
            return name in self.hosts
