"""HTTP routes. Each module is one resource; handlers are thin (parse, call, shape)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request, Security
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from trainer.api.auth import Principal, bearer_token
from trainer.api.openapi import BEARER_SCHEME
from trainer.api.sse import BackgroundTurns
from trainer.container import Container


async def get_container(request: Request) -> Container:
    provider = request.app.state.container_provider
    container: Container = await provider.get()
    return container


ContainerDep = Annotated[Container, Depends(get_container)]


bearer_scheme = HTTPBearer(
    scheme_name=BEARER_SCHEME,
    bearerFormat="JWT",
    description="A JWT whose `sub` (a UUID) is the user id: HS256 with the server's secret in local "
    "development, RS256/ES256 from the configured JWKS (Cognito, Supabase) when deployed.",
    auto_error=False,
)
"""Declares the security scheme in the OpenAPI; the header itself is read by `bearer_token`, which
answers with this API's own 401 codes."""


async def current_principal(
    request: Request, _: Annotated[HTTPAuthorizationCredentials | None, Security(bearer_scheme)]
) -> Principal:
    token = bearer_token(request.headers.get("authorization"))
    verifier = await request.app.state.container_provider.verifier()
    principal: Principal = await verifier.verify(token)
    return principal


MODEL_ROUTES = frozenset(
    {("POST", "/agent/chat"), ("POST", "/agent/stream"), ("POST", "/plans"), ("POST", "/workouts/import")}
)
"""Routes that start model work: the strictest request rate."""


def rate_bucket(method: str, path: str) -> str:
    """The request-rate bucket of a route (trainer.services.usage_limits.DEFAULT_RATES)."""
    if (method, path) in MODEL_ROUTES:
        return "model"
    return "read" if method in ("GET", "HEAD") else "write"


async def current_user_id(
    request: Request, principal: Annotated[Principal, Depends(current_principal)]
) -> str:
    """The caller's user id, once their account is known not to be deleted (401 `account_deleted`) and
    their request rate for this kind of route allows it (429 otherwise)."""
    container: Container = await request.app.state.container_provider.get()
    request.state.user_id = principal.user_id  # an error later: was the account deleted meanwhile?
    # One after the other: a deleted account's request writes nothing, not even its rate item.
    if container.accounts is not None:
        await container.accounts.refuse_if_deleted(principal.user_id)
    if container.limits is not None:
        route = request.scope.get("route")
        path = getattr(route, "path", request.url.path)
        await container.limits.check_rate(principal.user_id, rate_bucket(request.method, path))
    return principal.user_id


UserId = Annotated[str, Depends(current_user_id)]


async def registered_user_id(container: ContainerDep, user_id: UserId) -> str:
    """The user id, with the user's domain row created on first contact (agent turns write to it)."""
    await container.ensure_user(user_id)
    return user_id


RegisteredUserId = Annotated[str, Depends(registered_user_id)]


def background_turns(request: Request) -> BackgroundTurns:
    turns: BackgroundTurns = request.app.state.container_provider.turns
    return turns


TurnsDep = Annotated[BackgroundTurns, Depends(background_turns)]
