"""The browser table as a Starlette app: the page, its static files, the rules and a JSON API.

API (docs/web.md): ``GET /api/agents``; ``POST /api/games`` (play or watch) and
``POST /api/replays``; ``GET /api/games/{id}``, ``POST …/move``, ``…/step``, ``…/seek``, each
with an optional ``?seat=K``. Errors are ``{"error": message}`` with a 4xx status.
"""

from __future__ import annotations

import html
import json
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from hot_envs.web.checks import new_table, offered_agents, replay_table
from hot_envs.web.tables import RequestError, Table, TableStore

STATIC = Path(__file__).resolve().parent / "static"
RULES = Path(__file__).resolve().parent / "rules.md"  # a link to docs/rules.md, a file in the wheel
MAX_BODY = 8 * 2**20  # a recorded game is a few kB; this leaves room and stops abuse


def create_app(store: TableStore | None = None, agents: Iterable[str] = ()) -> Starlette:
    """The app over ``store`` (a new one by default). ``agents`` are extra agent specs browsers
    may choose (checkpoints, ``module:factory``), besides the built-in ones."""
    store = TableStore() if store is None else store
    allowed = tuple(agents)

    def on_table(act: Callable[[Table, int | None, dict], dict]) -> Handler:
        def handler(request: Request, body: dict) -> dict:
            table_id = request.path_params["table_id"]
            return {"id": table_id, **act(store.get(table_id), _seat(request), body)}

        return handler

    def created(table: Table) -> dict:
        return {"id": store.add(table), **table.snapshot()}

    api = [
        ("/api/agents", "GET", 200, lambda r, b: {"agents": offered_agents(allowed)}),
        ("/api/games", "POST", 201, lambda r, b: created(new_table(b, allowed))),
        ("/api/replays", "POST", 201, lambda r, b: created(replay_table(b))),
        ("/api/games/{table_id}", "GET", 200, on_table(lambda t, s, b: t.snapshot(s))),
        (
            "/api/games/{table_id}/move",
            "POST",
            200,
            on_table(lambda t, s, b: t.move(_field(b, "action"))),
        ),
        ("/api/games/{table_id}/step", "POST", 200, on_table(lambda t, s, b: t.step(s))),
        (
            "/api/games/{table_id}/seek",
            "POST",
            200,
            on_table(lambda t, s, b: t.seek(_field(b, "step"), s)),
        ),
    ]
    routes = [
        Route("/", page),
        Route("/table/{table_id}", page),
        Route("/rules", rules_page),
        *(Route(path, _endpoint(h, status), methods=[m]) for path, m, status, h in api),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    handlers = {HTTPException: _http_error, Exception: _server_error}
    app = Starlette(routes=routes, exception_handlers=handlers)
    app.state.store = store
    return app


Handler = Callable[[Request, dict], dict]


def _endpoint(handler: Handler, status: int) -> Callable[[Request], Awaitable[Response]]:
    """An endpoint that reads the JSON body, runs ``handler`` in a worker thread (agents may
    think a while; tables lock themselves) and answers in JSON: the result, or the error."""

    async def endpoint(request: Request) -> Response:
        try:
            body = await _body(request) if request.method == "POST" else {}
            result = await run_in_threadpool(handler, request, body)
        except RequestError as error:
            return _error(error.status, str(error))
        return JSONResponse(result, status_code=status)

    return endpoint


async def page(request: Request) -> Response:
    """The single page: it reads the table id from its address (so a reload resumes)."""
    return FileResponse(STATIC / "index.html")


async def _body(request: Request) -> dict:
    """The JSON object in the body ({} if empty)."""
    data = await request.body()
    if len(data) > MAX_BODY:
        raise RequestError(413, f"the body is over {MAX_BODY} bytes")
    if not data.strip():
        return {}
    try:
        body = json.loads(data)
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
        raise RequestError(400, f"unknown field(s) {', '.join(unknown)}")
    return body[name]


def _seat(request: Request) -> int | None:
    text = request.query_params.get("seat")
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        raise RequestError(400, f"seat must be a seat number, not {text!r}") from None


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _http_error(request: Request, error: HTTPException) -> Response:
    """Unknown paths and methods answer in JSON too."""
    return _error(error.status_code, f"{request.method} {request.url.path}: {error.detail}")


async def _server_error(request: Request, error: Exception) -> Response:
    """A fault on the server's side (say, an agent that breaks the rules): JSON, status 500; the
    engine leaves the game as it was."""
    return _error(500, f"the server failed: {type(error).__name__}: {error}")


async def rules_page(request: Request) -> Response:
    """docs/rules.md as a page, so the table's rule ids (``/rules#HL-4.3``) are a click away."""
    if not RULES.is_file():
        return _error(404, "the rules (docs/rules.md) are missing from this installation")
    text = RULES.read_text(encoding="utf-8")
    try:
        import markdown

        body = markdown.markdown(text, extensions=["tables"])
    except ImportError:  # the page still reads without the web extra's markdown
        body = f"<pre>{html.escape(text)}</pre>"
    return HTMLResponse(
        "<!doctype html><html><head><meta charset='utf-8'><title>Rules · hot_envs</title>"
        "<link rel='stylesheet' href='/static/style.css'></head>"
        f"<body class='rules'><p><a href='/'>← the table</a></p>{body}</body></html>"
    )
