"""The browser table as a Starlette app: the page, its static files, the rules and a JSON API.

API (docs/web.md): ``GET /api/agents``; ``POST /api/games`` (play or watch) and
``POST /api/replays``; ``GET /api/games/{id}``, ``POST …/move``, ``…/step``, ``…/seek``, each
with an optional ``?seat=K``. Errors are ``{"error": message}`` with a 4xx status.
"""

from __future__ import annotations

import html
import json
import logging
from collections.abc import Awaitable, Callable, Iterable
from importlib import resources
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from hot_envs.web.checks import new_table, offered_agents, replay_table
from hot_envs.web.origins import SameOrigin, check_origin
from hot_envs.web.seats import Referee
from hot_envs.web.store import StoreFull, TableStore
from hot_envs.web.tables import RequestError, Table, public, short

STATIC = Path(__file__).resolve().parent / "static"
CHECKOUT_RULES = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
MAX_BODY = 2**20  # a record of the longest replay is about 60 kB; this leaves room and stops abuse
log = logging.getLogger(__name__)


def create_app(
    store: TableStore | None = None,
    agents: Iterable[str] = (),
    allow_origins: Iterable[str] = (),
    referee: Referee | None = None,
) -> Starlette:
    """The app over ``store`` (a new one by default). ``agents`` are extra agent specs browsers
    may choose (checkpoints, ``module:factory``), besides the built-in ones; ``allow_origins``
    are origins besides the server's own whose pages may change games (``--allow-origin``);
    ``referee`` runs the agents' decisions within their cap (:mod:`hot_envs.web.seats`)."""
    store = TableStore() if store is None else store
    referee = Referee() if referee is None else referee
    allowed = tuple(agents)
    index = (STATIC / "index.html").read_bytes()  # from memory: no thread, no disk per visit

    def on_table(act: Callable[[Table, int | None, dict], dict]) -> Handler:
        async def handler(request: Request, body: dict) -> dict:
            table_id = request.path_params["table_id"]
            seat = _seat(request)
            table = store.get(table_id)
            try:
                return {"id": table_id, **await run_in_threadpool(act, table, seat, body)}
            finally:
                store.note(table_id)  # its moves and whether it is over, for the limits

        return handler

    def created(make: Callable[[dict], Table]) -> Handler:
        async def handler(request: Request, body: dict) -> dict:
            table = await run_in_threadpool(make, body)
            client = request.client.host if request.client else ""
            return {"id": store.add(table, client), **table.snapshot()}

        return handler

    async def step(request: Request, body: dict) -> dict:
        """The agent to move decides within the referee's cap; the table waits meanwhile
        (other requests to it are answered, a second step is a 409)."""
        if body:
            raise RequestError(400, f"unknown field(s) {', '.join(map(short, sorted(body)))}")
        table_id = request.path_params["table_id"]
        seat = _seat(request)
        table = store.get(table_id)
        turn = await run_in_threadpool(table.begin_step, seat)
        if isinstance(turn, dict):  # a replay's next move
            return {"id": table_id, **turn}
        client = request.client.host if request.client else ""
        try:
            action, late = await referee.decide(
                turn.agent, table.engine, turn.state, turn.mover, client
            )
        except BaseException:
            table.drop_step()
            raise
        try:
            return {"id": table_id, **await run_in_threadpool(table.end_step, turn, action, late)}
        finally:
            store.note(table_id)

    async def agents_list(request: Request, body: dict) -> dict:
        return {"agents": offered_agents(allowed)}

    move = on_table(lambda t, s, b: t.move(_field(b, "action"), s))
    seek = on_table(lambda t, s, b: t.seek(_field(b, "step"), s))
    api = [
        ("/api/agents", "GET", 200, agents_list),
        ("/api/games", "POST", 201, created(lambda b: new_table(b, allowed))),
        ("/api/replays", "POST", 201, created(replay_table)),
        ("/api/games/{table_id}", "GET", 200, on_table(lambda t, s, b: t.snapshot(s))),
        ("/api/games/{table_id}/move", "POST", 200, move),
        ("/api/games/{table_id}/step", "POST", 200, step),
        ("/api/games/{table_id}/seek", "POST", 200, seek),
    ]

    async def page(request: Request) -> Response:
        """The single page: it reads the table id from its address (so a reload resumes)."""
        return HTMLResponse(index)

    routes = [
        Route("/", page),
        Route("/table/{table_id}", page),
        Route("/rules", rules_page),
        *(Route(path, _endpoint(h, status), methods=[m]) for path, m, status, h in api),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    handlers = {HTTPException: _http_error, Exception: _server_error}
    origins = tuple(check_origin(origin) for origin in allow_origins)  # a bad one: ValueError now
    middleware = [Middleware(SameOrigin, allow=origins)]
    app = Starlette(routes=routes, exception_handlers=handlers, middleware=middleware)
    app.state.store, app.state.referee = store, referee
    return app


Handler = Callable[[Request, dict], Awaitable[dict]]


def _endpoint(handler: Handler, status: int) -> Callable[[Request], Awaitable[Response]]:
    """An endpoint that reads the JSON body, runs ``handler`` and answers in JSON: the result,
    or the error (a fault on the server's side, say an agent that breaks the rules, is a 500
    that keeps the connection; the engine leaves the game as it was)."""

    async def endpoint(request: Request) -> Response:
        try:
            body = await _body(request) if request.method == "POST" else {}
            result = await handler(request, body)
        except StoreFull as error:  # the server's (503) or the client's (429) share
            headers = {"Retry-After": str(error.retry_after)}
            return _error(error.status, str(error), headers)
        except RequestError as error:
            return _error(error.status, str(error))
        except ClientDisconnect:  # gone before its body came (or dropped for being slow)
            return _error(400, "the client went away before its request was read")
        except Exception as error:
            failure = f"{type(error).__name__}: {error}"
            log.warning("%s %s failed: %s", request.method, request.url.path, failure)
            return _error(500, f"the server failed: {failure}")
        return JSONResponse(result, status_code=status)

    return endpoint


async def _body(request: Request) -> dict:
    """The JSON object in the body ({} if empty), read no further than MAX_BODY bytes."""
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > MAX_BODY:
        raise RequestError(413, f"the body is over {MAX_BODY} bytes")
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY:
            raise RequestError(413, f"the body is over {MAX_BODY} bytes")
    if not data.strip():
        return {}
    try:
        body = json.loads(data)
    except RecursionError:  # nested deeper than the parser goes
        raise RequestError(400, "the body is not JSON this server reads: nested too deep") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise RequestError(400, f"the body is not JSON: {error}") from None
    if not isinstance(body, dict):
        raise RequestError(400, "the request body must be a JSON object")
    return body


def _field(body: dict, name: str) -> object:
    if name not in body:
        raise RequestError(400, f"the request lacks {name!r}")
    unknown = sorted(body.keys() - {name})
    if unknown:
        raise RequestError(400, f"unknown field(s) {', '.join(map(short, unknown))}")
    return body[name]


def _seat(request: Request) -> int | None:
    text = request.query_params.get("seat")
    if text is None:
        return None
    if not (text.isascii() and text.isdigit()) or len(text) > 2:  # int() refuses "²"
        raise RequestError(400, f"seat must be a seat number, not {short(text)}")
    return int(text)


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    """Every error a browser gets: the message without the server's folders, cut short."""
    return JSONResponse({"error": public(message)}, status_code=status, headers=headers)


async def _http_error(request: Request, error: HTTPException) -> Response:
    """Unknown paths and methods answer in JSON too."""
    return _error(error.status_code, f"{request.method} {short(request.url.path)}: {error.detail}")


async def _server_error(request: Request, error: Exception) -> Response:
    """A fault outside the API's endpoints: JSON, status 500."""
    return _error(500, f"the server failed: {type(error).__name__}: {error}")


async def rules_page(request: Request) -> Response:
    """docs/rules.md as a page, so the table's rule ids (``/rules#HL-4.3``) are a click away: in a
    wheel as ``hot_envs.guide`` (the build ships docs/rules.md there), in a source checkout or an
    editable install from docs/ itself."""
    try:
        text = resources.files("hot_envs.guide").joinpath("rules.md").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        if not CHECKOUT_RULES.is_file():
            return _error(404, "the rules (docs/rules.md) are missing from this installation")
        text = CHECKOUT_RULES.read_text(encoding="utf-8")
    try:
        import markdown

        body = markdown.markdown(text, extensions=["tables"])
    except ImportError:  # the page still reads without the web extra's markdown
        body = f"<pre>{html.escape(text)}</pre>"
    return HTMLResponse(
        "<!doctype html><html><head><meta charset='utf-8'><title>Rules · hot_envs</title>"
        "<link rel='icon' href='data:,'>"
        "<link rel='stylesheet' href='/static/style.css'></head>"
        f"<body class='rules'><p><a href='/'>← the table</a></p>{body}</body></html>"
    )
