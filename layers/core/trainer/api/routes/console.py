"""The session console (docs/operations.md#the-session-console): static files under /console, served only when
TRAINER_CONSOLE_ENABLED is set (the local stack sets it) and left out of the OpenAPI document. The
console calls the same API with the same bearer token as the app.

`GET /console/local-token` gives the console the local stack's demo token for its one-click sign-in:
only the local stack offers one (`offer_local_token`), and a deployed function never answers it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from trainer.api.errors import ApiError
from trainer.settings import Settings

CONSOLE_DIR = Path(__file__).resolve().parents[1] / "console"
CONSOLE_HEADERS = {
    "Cache-Control": "no-cache",
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
}


@dataclass(frozen=True)
class LocalToken:
    user_id: str
    token: str


class ConsoleFiles(StaticFiles):
    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        response.headers.update(CONSOLE_HEADERS)
        return response


def install_console(app: FastAPI, settings: Settings) -> None:
    router = APIRouter(include_in_schema=False)

    @router.get("/console")
    async def console_root() -> RedirectResponse:
        return RedirectResponse("console/", status_code=308)

    @router.get("/console/local-token")
    async def local_token(request: Request) -> JSONResponse:
        offered: LocalToken | None = getattr(request.app.state, "console_local_token", None)
        if offered is None or settings.deployed:
            raise ApiError(404, "not_found", "No local sign-in here: paste a token.")
        return JSONResponse(
            {"userId": offered.user_id, "token": offered.token}, headers={"Cache-Control": "no-store"}
        )

    app.include_router(router)
    app.mount("/console", ConsoleFiles(directory=CONSOLE_DIR, html=True), name="console")


def offer_local_token(app: FastAPI, settings: Settings, user_id: str, token: str) -> None:
    """The local stack's demo token, for the console's one-click sign-in."""
    if settings.deployed:
        raise RuntimeError("a deployed function never hands out a token")
    app.state.console_local_token = LocalToken(user_id=user_id, token=token)
