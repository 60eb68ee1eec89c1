"""HTTP routes. Each module is one resource; handlers are thin (parse, call, shape)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import Depends, Header, Request

from trainer.api.auth import Principal, bearer_token
from trainer.container import Container


async def get_container(request: Request) -> Container:
    provider = request.app.state.container_provider
    container: Container = await provider.get()
    return container


ContainerDep = Annotated[Container, Depends(get_container)]


async def current_principal(
    container: ContainerDep, authorization: Annotated[str | None, Header()] = None
) -> Principal:
    return await container.verifier.verify(bearer_token(authorization))


async def current_user_id(principal: Annotated[Principal, Depends(current_principal)]) -> str:
    return principal.user_id


UserId = Annotated[str, Depends(current_user_id)]


async def registered_user_id(container: ContainerDep, user_id: UserId) -> str:
    """The user id, with the user's domain row created on first contact (agent turns write to it)."""
    await container.ensure_user(user_id)
    return user_id


RegisteredUserId = Annotated[str, Depends(registered_user_id)]


async def in_thread[T](fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Sync store calls (boto3) off the event loop."""
    return await asyncio.to_thread(fn, *args, **kwargs)
