"""How long a model call may take: the function's remaining time (a Lambda context, the
Lambda Web Adapter's header, else the configured turn deadline) less a margin; the API sets it from the
request, an earlier deadline is never pushed back, and the SDK clients never keep their 600 s default."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from starlette.types import Receive, Scope, Send
from trainer.api.deadline import FunctionDeadlineMiddleware
from trainer.providers.anthropic import AnthropicAgentModel
from trainer.providers.deadline import call_timeout, current_deadline, deadline_in, remaining_seconds
from trainer.providers.openai import OpenAIStructured
from trainer.providers.ports import ModelError
from trainer.settings import Settings


class LambdaContext:
    def __init__(self, remaining_ms: int) -> None:
        self.remaining_ms = remaining_ms

    def get_remaining_time_in_millis(self) -> int:
        return self.remaining_ms


def test_the_remaining_time_comes_from_the_lambda_context_or_the_web_adapters_header() -> None:
    assert remaining_seconds(LambdaContext(42_000)) == pytest.approx(42.0)
    header = json.dumps({"deadline": (time.time() + 30) * 1000})
    assert remaining_seconds(None, {"x-amzn-lambda-context": header}) == pytest.approx(30.0, abs=0.5)
    assert remaining_seconds(None, {}) is None
    assert remaining_seconds(None, {"x-amzn-lambda-context": "not json"}) is None


def test_a_call_gets_the_time_to_the_deadline_less_the_margin() -> None:
    assert call_timeout(300, 10) == pytest.approx(290)
    with deadline_in(20):
        assert call_timeout(300, 5) == pytest.approx(15, abs=0.2)
        with deadline_in(100):
            assert call_timeout(300, 5) == pytest.approx(15, abs=0.2), "an earlier deadline stands"
    with deadline_in(3), pytest.raises(ModelError) as spent:
        call_timeout(300, 5)
    assert spent.value.code == "model_timeout"
    assert current_deadline() is None


async def test_the_api_sets_the_deadline_from_the_lambda_context() -> None:
    seen: list[float | None] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        seen.append(current_deadline())

    middleware = FunctionDeadlineMiddleware(app)

    async def nothing() -> Any:
        return {}

    async def ignore(message: Any) -> None:
        return None

    await middleware({"type": "http", "headers": [], "aws.context": LambdaContext(25_000)}, nothing, ignore)
    await middleware({"type": "http", "headers": []}, nothing, ignore)
    deadline, none = seen
    assert deadline is not None and deadline - time.monotonic() == pytest.approx(25, abs=0.5)
    assert none is None


def test_the_sdk_clients_time_out_with_the_function_not_after_600_s() -> None:
    settings = Settings(
        ANTHROPIC_API_KEY="k",
        OPENAI_API_KEY="k",
        ANTHROPIC_BASE_URL="http://127.0.0.1:9",
        OPENAI_BASE_URL="http://127.0.0.1:9/v1",
        TRAINER_FUNCTION_TIMEOUT_SECONDS=45,
    )
    assert AnthropicAgentModel(settings)._client.timeout == 45
    assert OpenAIStructured(settings)._client.timeout == 45
